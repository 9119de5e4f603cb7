-- Durable delayed calls of wheel-timer, for MySQL 8.0+ and MariaDB 10.6+ (InnoDB).
-- Step 1 of the tables' versions: the calls' and the instances' tables.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version:
-- pointed at directly, this folder's V1__ and V2__ would clash with your application's own versions.
-- Instants are DATETIME(6) in UTC, whatever the server's and the session's time zone; ids are UUIDs as text.
-- Indexes are declared in CREATE TABLE: MySQL has no CREATE INDEX IF NOT EXISTS, nor partial indexes.

-- One row per pending, claimed, running or failed call; deleted when its call has run.
CREATE TABLE IF NOT EXISTS WHEEL_TIMER_CALL (
    id           CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    method_id    VARCHAR(200) NOT NULL,
    -- Keys are compared byte for byte: a text collation would take 'a' and 'a ' (or 'A') for one key.
    -- 1,500 bytes hold 500 UTF-16 units in UTF-8.
    call_key     VARBINARY(1500),
    arguments    LONGTEXT NOT NULL,
    due_at       DATETIME(6) NOT NULL,
    state        VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner_id     CHAR(36) CHARACTER SET ascii COLLATE ascii_bin,
    attempts     INTEGER NOT NULL DEFAULT 0,
    created_at   DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    finished_at  DATETIME(6),
    last_error   VARCHAR(4000),
    -- The caller's span as a W3C traceparent: the call's span links to it, wherever it runs.
    trace_parent VARCHAR(55) CHARACTER SET ascii COLLATE ascii_bin,
    -- The key a call had when it started (call_key names pending calls only): a failed call keeps it,
    -- and gets it back when an operator re-queues it.
    started_key  VARBINARY(1500),
    -- Failed runs of the call, ever (attempts counts its starts): a start beyond them follows a run
    -- that never ended, cut short by a lapsed instance.
    failures     INTEGER NOT NULL DEFAULT 0,
    -- @Retryable: the retries of this round (an operator's re-queue starts a new one), and when the
    -- round's first attempt started, from which its timeout counts.
    retries      INTEGER NOT NULL DEFAULT 0,
    retrying_since DATETIME(6),
    PRIMARY KEY (id),
    -- The claim reads pending rows by (state, due time).
    INDEX WHEEL_TIMER_CALL_DUE (state, due_at),
    -- A key names at most one pending call of a method; it is cleared when the call starts. Key first:
    -- the cleared keys (NULL) then sort before every method's keys, not beside them, so that a starting
    -- call seldom moves its key into a gap that a caller's open transaction locked (REPEATABLE READ).
    UNIQUE INDEX WHEEL_TIMER_CALL_KEY (call_key, method_id),
    -- Take-over and hand-back find an instance's rows.
    INDEX WHEEL_TIMER_CALL_OWNER (owner_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per running instance (per process start), kept alive by its heartbeat.
CREATE TABLE IF NOT EXISTS WHEEL_TIMER_INSTANCE (
    id            CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    name          VARCHAR(200) NOT NULL,
    started_at    DATETIME(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
    heartbeat_at  DATETIME(6) NOT NULL,
    -- The durable method ids it knows, one per line: calls of a method no live instance knows are reported.
    methods       MEDIUMTEXT NOT NULL,
    PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
