package io.github.wheeltimer.durable.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;

/**
 * Every piece of SQL that differs between the databases durable calls run on, and nothing else:
 * {@link JdbcCallRepository} and {@link JdbcInstanceRepository} write the rest once, in the
 * subset every supported database shares.
 * <p>
 * The defaults are PostgreSQL's, which H2 and MySQL share for most of them. A database is added
 * with a subclass that overrides what differs, a folder of migration scripts
 * {@code io/github/wheeltimer/durable/schema/<platform>/} with one script per step of the tables'
 * version, and a subclass of the contract tests. {@link DurableDialects#of(DataSource)} picks it
 * from Spring Boot's {@link DatabaseDriver}, the property {@code wheel-timer.durable.jdbc.platform}
 * names it ({@link DurableDialects#forPlatform}), and a {@code DurableDialect} bean replaces it.
 * Stateless and thread-safe.
 */
public abstract class DurableDialect {

	/**
	 * Returns the platform's name, as Spring Boot's {@link DatabaseDriver#getId()} and
	 * {@code spring.quartz.jdbc.platform} spell it: {@code postgresql}, {@code mysql}, {@code mariadb},
	 * {@code h2}.
	 * @return the platform
	 */
	public abstract String platform();

	/**
	 * Returns the folder on the class path that holds this database's migration scripts, one per
	 * step of the tables' version (see {@link DurableSchema}).
	 * @return the folder, such as {@code io/github/wheeltimer/durable/schema/h2}
	 */
	public String schemaFolder() {
		return "io/github/wheeltimer/durable/schema/" + platform();
	}

	/**
	 * Returns an SQL expression for the database's current time, in the zone {@link #instant(Instant)}
	 * binds instants in.
	 * @return the expression
	 */
	public String now() {
		return "CURRENT_TIMESTAMP";
	}

	/**
	 * Returns an SQL expression for the database's current time minus {@code duration}: every
	 * lease decision uses the database's clock, so that instances' clocks never have to agree.
	 * @param duration how long before now
	 * @return the expression
	 */
	public abstract String before(Duration duration);

	/**
	 * Returns the statement that writes a new call and replaces the pending call of the same
	 * method id and key, binding {@code columns} in order from {@code values}' placeholders. Where
	 * the {@link #gateInPlace() gate leaves the key in place}, it changes no row when a started call
	 * holds the key.
	 * @param table the calls' table
	 * @param columns the columns a new call sets, comma-separated
	 * @param values their values, comma-separated placeholders and literals
	 * @return the upsert
	 */
	public abstract String upsertByKey(String table, String columns, String values);

	/**
	 * Returns whether the gate may leave a started call's key in place, so that it changes no
	 * indexed column: the key then moves aside only when a new call of the same key is made
	 * ({@link #upsertByKey} skips a started call's row, and says so by changing none), or when the
	 * call fails. {@code false} by default: the gate moves the key aside as the call starts.
	 * @return whether started calls may keep their key
	 */
	public boolean gateInPlace() {
		return false;
	}

	/**
	 * Returns the condition that picks the calls waiting to be claimed, in the form the claim's
	 * index serves.
	 * @return {@code state = 'PENDING'} by default
	 */
	public String pending() {
		return "state = 'PENDING'";
	}

	/**
	 * Returns whether the key index leads with the method id, so that the methods that have calls
	 * are read through it, one probe per method, rather than from every row.
	 * @return {@code true} by default; MySQL's key index leads with the key
	 */
	public boolean keyIndexLeadsWithMethod() {
		return true;
	}

	/**
	 * Returns the index, after the table prefix, that a step replaced and that the starters before
	 * that step still claim by: dropped once none of them runs, and until then the gate moves the
	 * key aside as they expect.
	 * @return the index's name after the prefix, or {@code null} (the default) if there is none
	 */
	public @Nullable String retiredIndex() {
		return null;
	}

	/**
	 * Returns whether an index of the calls' table exists.
	 * @param jdbc the database
	 * @param name the index's name, prefix included
	 * @return {@code true} if it exists; {@code false} by default, where there is no
	 * {@link #retiredIndex()} to look for
	 */
	public boolean indexExists(JdbcTemplate jdbc, String name) {
		return false;
	}

	/**
	 * Returns whether the {@link #retiredIndex() retired index} is still on the calls' table.
	 * @param jdbc the database
	 * @param prefix the tables' prefix, which the index's name starts with
	 * @return {@code false} where there is none to look for
	 */
	public boolean retiredIndexExists(JdbcTemplate jdbc, String prefix) {
		String retired = retiredIndex();
		return retired != null && indexExists(jdbc, prefix + retired);
	}

	/**
	 * Returns the statement that drops an index without holding the table's writers, run outside
	 * a transaction.
	 * @param name the index's name, prefix included
	 * @return the statement
	 */
	public String dropIndex(String name) {
		return "DROP INDEX IF EXISTS " + name;
	}

	/**
	 * Returns whether two callers replacing one key at once can both try to insert, so that the
	 * loser's {@code DuplicateKeyException} means "replace again" (an upsert that is an update then
	 * an insert, not one atomic statement).
	 * @return {@code true} if the upsert is retried once on a duplicate key
	 */
	public boolean upsertRetriesOnDuplicateKey() {
		return false;
	}

	/**
	 * Limits a query to its first rows, the count bound as its last parameter.
	 * @param query a query that ends with its {@code ORDER BY}, if any
	 * @return the limited query
	 */
	public String limit(String query) {
		return query + " LIMIT ?";
	}

	/**
	 * Limits a query to one page of its rows, the page's size then the rows to skip bound as its
	 * last two parameters.
	 * @param query a query that ends with its {@code ORDER BY}
	 * @return the paged query
	 */
	public String page(String query) {
		return query + " LIMIT ? OFFSET ?";
	}

	/**
	 * Locks the rows a query reads, skipping those another transaction holds, so that claims and
	 * take-overs never wait for each other nor for a caller's open transaction.
	 * @param query the query, limited already if it is
	 * @return the locking query
	 */
	public String skipLocked(String query) {
		return query + " FOR UPDATE SKIP LOCKED";
	}

	/**
	 * Returns a condition that a column is among the rows a locking, limited subquery picks.
	 * @param column the column
	 * @param subquery the subquery, one column
	 * @return the condition, binding what the subquery binds
	 */
	public String inSubquery(String column, String subquery) {
		return column + " IN (" + subquery + ")";
	}

	/**
	 * Returns an update that also returns the given columns of the rows it changed, in one round
	 * trip: the claim and a batch's gates are then one statement each. {@code null} (the default)
	 * where the database cannot: the rows are then locked first, and updated in a transaction.
	 * @param update the update
	 * @param columns the columns to return
	 * @return the statement, binding what the update binds; or {@code null}
	 */
	public @Nullable String returning(String update, String columns) {
		return null;
	}

	/**
	 * Returns whether a locking statement that finds no row locks the gap where the row would be,
	 * until its transaction ends (InnoDB under REPEATABLE READ). A cancel by key inside a caller's
	 * transaction then first looks for the key with a plain read, which locks nothing: a delete of a
	 * key no call holds would otherwise hold up, for the rest of that transaction, every call of the
	 * method whose start moves its key into that gap.
	 * @return {@code true} if an absent key is looked for before it is deleted
	 */
	public boolean locksGapsOfAbsentRows() {
		return false;
	}

	/**
	 * Returns the isolation level of the transactions durable calls run of their own (the claim of
	 * the portable pair, take-overs), as a {@code TransactionDefinition} constant; the connection's
	 * by default. A locking read of InnoDB under REPEATABLE READ also locks the gaps of the range
	 * it scanned: an instance frozen in the middle of its claim (a long GC pause) would then keep
	 * every other instance from putting a dead instance's calls back to pending, for as long as it
	 * stays frozen. READ COMMITTED locks only the rows read. Where it is not the connection's,
	 * the batches of gates and finishes run in such a transaction too: on a small table InnoDB
	 * reads their {@code id IN (...)} by a scan, which under REPEATABLE READ waits for every row a
	 * caller's open transaction inserted.
	 * @return the isolation level
	 */
	public int ownTransactionIsolation() {
		return TransactionDefinition.ISOLATION_DEFAULT;
	}

	/**
	 * Returns a condition that holds when a query finds no row, for use in an update whose query may
	 * read the table it changes.
	 * @param query the query
	 * @return the condition
	 */
	public String notExists(String query) {
		return "NOT EXISTS (" + query + ")";
	}

	/**
	 * Compares a nullable column with a parameter, treating two nulls as equal.
	 * @param column the column
	 * @return the comparison
	 */
	public String sameAs(String column) {
		return column + " IS NOT DISTINCT FROM ?";
	}

	/**
	 * Returns how an id is bound.
	 * @param id the id
	 * @return the parameter value
	 */
	public Object id(UUID id) {
		return id;
	}

	/**
	 * Reads an id.
	 * @param rs the result set
	 * @param column the column index
	 * @return the id, or {@code null}
	 * @throws SQLException if it cannot be read
	 */
	public @Nullable UUID id(ResultSet rs, int column) throws SQLException {
		return rs.getObject(column, UUID.class);
	}

	/**
	 * Returns how an instant is bound: in UTC, whatever the JVM's and the server's time zones.
	 * @param instant the instant
	 * @return the parameter value
	 */
	public Object instant(Instant instant) {
		return instant.atOffset(ZoneOffset.UTC);
	}

	/**
	 * Reads an instant.
	 * @param rs the result set
	 * @param column the column index
	 * @return the instant, or {@code null}
	 * @throws SQLException if it cannot be read
	 */
	public @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	/**
	 * Takes a lock, held by the connection behind {@code jdbc}, under which the migration scripts
	 * run, for a database whose {@code CREATE ... IF NOT EXISTS} fails when another session
	 * creates the same object at the same moment, or without {@code ADD COLUMN IF NOT EXISTS};
	 * does nothing by default.
	 * @param jdbc statements on the one connection the scripts run on
	 * @param name the lock's name: the tables' prefix
	 */
	public void lockSchema(JdbcTemplate jdbc, String name) {
	}

	/**
	 * Releases the lock {@link #lockSchema} took.
	 * @param jdbc statements on the same connection
	 * @param name the lock's name
	 */
	public void unlockSchema(JdbcTemplate jdbc, String name) {
	}

	/**
	 * Returns whether a statement of a migration script failed only because what it adds is there
	 * already, so that the rest of its step still runs: a step that stopped half-way, on a database
	 * whose statement cannot say "if not exists". {@code false} by default: the scripts of
	 * PostgreSQL and H2 say it.
	 * @param statement the statement, as it ran
	 * @param failure how it failed
	 * @return {@code true} if the statement counts as done
	 */
	public boolean alreadyApplied(String statement, SQLException failure) {
		return false;
	}

	/**
	 * Refuses a server too old for the SQL this dialect writes; accepts any by default.
	 * @param product the database's product name, as its driver reports it
	 * @param version the product's version, as its driver reports it
	 * @throws IllegalStateException naming the version and what is needed
	 */
	public void requireVersion(String product, String version) {
	}

	@Override
	public String toString() {
		return platform();
	}

}
