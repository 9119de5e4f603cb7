/**
 * Durable calls on a JDBC database: the repositories, in the SQL every supported database
 * shares, the {@link io.github.wheeltimer.durable.jdbc.DurableDialect} that owns every piece of
 * SQL that differs, and the schema's initializer.
 */
@NullMarked
package io.github.wheeltimer.durable.jdbc;

import org.jspecify.annotations.NullMarked;
