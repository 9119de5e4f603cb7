-- Durable delayed calls of wheel-timer, for H2.
-- Step 3 of the tables' versions, a start gate in place. On PostgreSQL this step lets the gate that starts a
-- call change no indexed column. H2 has no partial index for the claim to use without naming the state, and
-- its MERGE cannot skip a started call's row, so here the gate and its indexes stay as they were: this step
-- only records, per instance, the tables' version its starter writes. Run it after V2__argument_shapes.sql; it
-- adds only what is missing, so it may run again.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version.

-- The tables' version the instance's starter writes; NULL for a starter before version 3.
ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN IF NOT EXISTS tables_version INTEGER NULL;

MERGE INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) KEY (version) VALUES (3, 'gate in place');
