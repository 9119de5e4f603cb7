-- Durable delayed calls of wheel-timer, for PostgreSQL.
-- Step 1 of the tables' versions: the calls' and the instances' tables, and the columns that tables made
-- by an earlier copy of this script lack.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version:
-- pointed at directly, this folder's V1__ and V2__ would clash with your application's own versions.

-- One row per pending, claimed, running or failed call; deleted when its call has run.
CREATE TABLE IF NOT EXISTS WHEEL_TIMER_CALL (
    id           UUID PRIMARY KEY,
    method_id    VARCHAR(200) NOT NULL,
    call_key     VARCHAR(500),
    arguments    TEXT NOT NULL,
    due_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    state        VARCHAR(8) NOT NULL,
    owner_id     UUID,
    attempts     INTEGER NOT NULL DEFAULT 0,
    created_at   TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    finished_at  TIMESTAMP WITH TIME ZONE,
    last_error   VARCHAR(4000),
    -- The caller's span as a W3C traceparent: the call's span links to it, wherever it runs.
    trace_parent VARCHAR(55),
    -- The key a call had when it started (call_key names pending calls only): a failed call keeps it,
    -- and gets it back when an operator re-queues it.
    started_key  VARCHAR(500),
    -- Failed runs of the call, ever (attempts counts its starts): a start beyond them follows a run
    -- that never ended, cut short by a lapsed instance.
    failures     INTEGER NOT NULL DEFAULT 0,
    -- @Retryable: the retries of this round (an operator's re-queue starts a new one), and when the
    -- round's first attempt started, from which its timeout counts.
    retries      INTEGER NOT NULL DEFAULT 0,
    retrying_since TIMESTAMP WITH TIME ZONE
);

-- The claim reads pending rows by due time, and only those.
CREATE INDEX IF NOT EXISTS WHEEL_TIMER_CALL_DUE ON WHEEL_TIMER_CALL (due_at) WHERE state = 'PENDING';

-- A key names at most one pending call of a method; it is cleared when the call starts (on PostgreSQL from
-- version 3, when a new call of that key is written or the call fails: see V3__gate_in_place.sql).
CREATE UNIQUE INDEX IF NOT EXISTS WHEEL_TIMER_CALL_KEY ON WHEEL_TIMER_CALL (method_id, call_key);

-- Take-over and hand-back find an instance's rows.
CREATE INDEX IF NOT EXISTS WHEEL_TIMER_CALL_OWNER ON WHEEL_TIMER_CALL (owner_id) WHERE owner_id IS NOT NULL;

-- One row per running instance (per process start), kept alive by its heartbeat.
CREATE TABLE IF NOT EXISTS WHEEL_TIMER_INSTANCE (
    id            UUID PRIMARY KEY,
    name          VARCHAR(200) NOT NULL,
    started_at    TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    heartbeat_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    -- The durable method ids it knows, one per line: calls of a method no live instance knows are reported.
    methods       TEXT NOT NULL
);

-- Tables made by an earlier version of this script: the instance's methods came later.
ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN IF NOT EXISTS methods TEXT NOT NULL DEFAULT '';
-- Tables made before calls stored their caller's trace.
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS trace_parent VARCHAR(55);
-- Tables made before failed calls kept their key.
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS started_key VARCHAR(500);
-- Tables made before calls were retried (@Retryable).
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS failures INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS retries INTEGER DEFAULT 0 NOT NULL;
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS retrying_since TIMESTAMP WITH TIME ZONE;
