-- Durable delayed calls of wheel-timer, for MySQL 8.0+ and MariaDB 10.6+ (InnoDB).
-- Step 3 of the tables' versions, a start gate in place. On PostgreSQL this step lets the gate that starts a
-- call change no indexed column. InnoDB has no partial index for the claim to use without naming the state,
-- and its upsert cannot skip a started call's row in one statement, so here the gate and its indexes stay as
-- they were: this step only records, per instance, the tables' version its starter writes. Run it after
-- V2__argument_shapes.sql.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version.
-- Run again after it stopped half-way, an ALTER whose column is there fails with "Duplicate column name"
-- (error 1060), which the starter takes as done; by hand, skip that statement.

-- The tables' version the instance's starter writes; NULL for a starter before version 3.
ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN tables_version INTEGER NULL;

INSERT IGNORE INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) VALUES (3, 'gate in place');
