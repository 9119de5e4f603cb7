-- Durable delayed calls of wheel-timer, for PostgreSQL.
-- Step 3 of the tables' versions, a start gate in place: the gate that starts a call changes no indexed column,
-- so that PostgreSQL writes the row's new version on its page with no new index entry (a HOT update). Run it
-- after V2__argument_shapes.sql; it adds only what is missing, so it may run again.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version.
-- Adding the stored column rewrites the calls' table once, under a lock that holds its readers and writers.

-- Whether the call waits to be claimed (state = 'PENDING'), in a column of its own: the claim's index names
-- it, not state, which the gate changes from CLAIMED to RUNNING. This column stays false through the gate.
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS pending BOOLEAN GENERATED ALWAYS AS (state = 'PENDING') STORED;

-- The claim reads the waiting rows by due time, and only those.
CREATE INDEX IF NOT EXISTS WHEEL_TIMER_CALL_PENDING ON WHEEL_TIMER_CALL (due_at) WHERE pending;

-- The failed calls (and the retries waiting) by their end: the clean-up's delete and the operators' pages of
-- failed calls read them so, however many calls wait. The gate does not change finished_at.
CREATE INDEX IF NOT EXISTS WHEEL_TIMER_CALL_FINISHED ON WHEEL_TIMER_CALL (finished_at) WHERE finished_at IS NOT NULL;

-- Room on each page for the versions the claim and the gate write, so that the gate's fits beside the row.
ALTER TABLE WHEEL_TIMER_CALL SET (fillfactor = 80);

-- The tables' version the instance's starter writes; NULL for a starter before version 3. The claim index
-- of those starters (WHEEL_TIMER_CALL_DUE, on state) is dropped once none of them runs: with initialize-schema
-- by the first instance that starts then, by hand otherwise (see the reference page on databases).
ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN IF NOT EXISTS tables_version INTEGER NULL;

INSERT INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) VALUES (3, 'gate in place') ON CONFLICT DO NOTHING;
