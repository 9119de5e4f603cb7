-- Durable delayed calls of wheel-timer, for PostgreSQL.
-- Step 2 of the tables' versions, argument shapes: each call records the argument shape of the starter that
-- wrote it, each instance the shapes it reads, and a third table records the tables' version. Run it after
-- V1__tables.sql; it adds only what is missing, so it may run again.
-- WHEEL_TIMER_ is the table prefix (wheel-timer.durable.jdbc.table-prefix): replace it if you apply this script
-- by hand. With Flyway or Liquibase, copy it into a migration of your own, as your application's next version:
-- pointed at directly, this folder's V1__ and V2__ would clash with your application's own versions.

-- The argument shape (a fingerprint of the durable method's parameter types) of the version that wrote the
-- call; '' for calls written before version 2 or by an older starter.
ALTER TABLE WHEEL_TIMER_CALL ADD COLUMN IF NOT EXISTS shape VARCHAR(16) NOT NULL DEFAULT '';

-- Per durable method, the instance's argument shape and the shapes it cannot read; NULL for an instance of a
-- starter older than version 2.
ALTER TABLE WHEEL_TIMER_INSTANCE ADD COLUMN IF NOT EXISTS shapes TEXT NULL;

-- One row per step applied from version 2 on: the tables' version is the highest (tables without this one
-- are at version 1).
CREATE TABLE IF NOT EXISTS WHEEL_TIMER_SCHEMA_VERSION (
    version      INTEGER PRIMARY KEY,
    description  VARCHAR(200) NOT NULL,
    applied_at   TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

INSERT INTO WHEEL_TIMER_SCHEMA_VERSION (version, description) VALUES (2, 'argument shapes') ON CONFLICT DO NOTHING;
