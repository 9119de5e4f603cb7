package io.github.wheeltimer.durable.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionDefinition;

/**
 * MySQL 8.0 and later, and MariaDB 10.6 and later (platforms {@code mysql} and {@code mariadb}),
 * in the SQL both accept: {@code SKIP LOCKED}, {@code INSERT ... ON DUPLICATE KEY UPDATE},
 * {@code GET_LOCK}; no {@code RETURNING} on an update, so the claim is the portable pair.
 * <p>
 * Neither has a time-zone-aware timestamp that reaches year 9999, so every instant is a
 * {@code DATETIME(6)} in UTC: bound as text, which no driver shifts to the JVM's or the server's
 * zone, and compared with {@code UTC_TIMESTAMP(6)}, never the session's {@code NOW()}. An instant
 * is rounded up to the column's microsecond, so that a call is never due before its time. Ids are
 * {@code CHAR(36)} text, which both drivers bind and read alike, and operators can read.
 */
public class MySqlDialect extends DurableDialect {

	/** A server's version as its driver reports it: MariaDB behind MySQL's driver says {@code 5.5.5-10.11.5-MariaDB}. */
	private static final Pattern VERSION = Pattern.compile("(?:5\\.5\\.5-)?(\\d+)\\.(\\d+)(?:\\.(\\d+))?(.*)");

	private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS",
			Locale.ROOT);

	/** {@code GET_LOCK} names are at most 64 characters; the prefix's hash keeps ours short. */
	private static final String SCHEMA_LOCK = "wheel_timer_schema_";

	/** How long an instance starting waits for another one's script, in seconds. */
	private static final int SCHEMA_LOCK_TIMEOUT = 60;

	/** ER_DUP_FIELDNAME, "Duplicate column name", and its SQLState. */
	private static final int DUPLICATE_COLUMN = 1060;

	private static final String DUPLICATE_COLUMN_STATE = "42S21";

	private final String platform;

	/** Creates the dialect of MySQL. */
	public MySqlDialect() {
		this("mysql");
	}

	/**
	 * Creates the dialect under the name Spring Boot's {@code DatabaseDriver} gives the database.
	 * @param platform {@code mysql} or {@code mariadb}
	 */
	protected MySqlDialect(String platform) {
		this.platform = platform;
	}

	/** @return the dialect of MariaDB: the same SQL, under MariaDB's name */
	public static MySqlDialect mariaDb() {
		return new MySqlDialect("mariadb");
	}

	@Override
	public String platform() {
		return this.platform;
	}

	/** Both platforms share one folder of scripts. */
	@Override
	public String schemaFolder() {
		return "io/github/wheeltimer/durable/schema/mysql";
	}

	@Override
	public String now() {
		return "UTC_TIMESTAMP(6)";
	}

	@Override
	public String before(Duration duration) {
		return "(UTC_TIMESTAMP(6) - INTERVAL " + duration.toNanos() / 1000 + " MICROSECOND)";
	}

	/**
	 * {@code VALUES(column)} is the form both accept: MySQL 8.0.20 deprecates it in favour of a row
	 * alias, which MariaDB does not have.
	 */
	@Override
	public String upsertByKey(String table, String columns, String values) {
		return "INSERT INTO " + table + " (" + columns + ") VALUES (" + values + ") ON DUPLICATE KEY UPDATE"
				+ " id = VALUES(id), arguments = VALUES(arguments), due_at = VALUES(due_at), state = VALUES(state),"
				+ " owner_id = VALUES(owner_id), attempts = 0, trace_parent = VALUES(trace_parent),"
				+ " shape = VALUES(shape), created_at = VALUES(created_at), failures = 0, retries = 0,"
				+ " retrying_since = NULL, finished_at = NULL, last_error = NULL";
	}

	/** The key index is {@code (call_key, method_id)}: key first, for the gap locks (see the schema script). */
	@Override
	public boolean keyIndexLeadsWithMethod() {
		return false;
	}

	@Override
	public int ownTransactionIsolation() {
		return TransactionDefinition.ISOLATION_READ_COMMITTED;
	}

	@Override
	public boolean locksGapsOfAbsentRows() {
		return true;
	}

	@Override
	public String sameAs(String column) {
		return column + " <=> ?";
	}

	/**
	 * MySQL refuses a subquery on the table an update changes, unless the subquery is a derived
	 * table it must materialize first, which a {@code LIMIT} makes it.
	 */
	@Override
	public String notExists(String query) {
		return "NOT EXISTS (SELECT 1 FROM (" + query + " LIMIT 1) AS found)";
	}

	@Override
	public Object id(UUID id) {
		return id.toString();
	}

	@Override
	public @Nullable UUID id(ResultSet rs, int column) throws SQLException {
		String id = rs.getString(column);
		return (id != null) ? UUID.fromString(id) : null;
	}

	@Override
	public Object instant(Instant instant) {
		Instant micros = instant.truncatedTo(ChronoUnit.MICROS);
		if (micros.isBefore(instant)) {
			micros = micros.plus(1, ChronoUnit.MICROS);
		}
		return DATETIME.format(LocalDateTime.ofInstant(micros, ZoneOffset.UTC));
	}

	@Override
	public @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
		LocalDateTime value = rs.getObject(column, LocalDateTime.class);
		return (value != null) ? value.toInstant(ZoneOffset.UTC) : null;
	}

	/**
	 * A named lock of the server, released by {@link #unlockSchema} or by the end of the session:
	 * {@code CREATE TABLE IF NOT EXISTS} is safe on its own, but a step's {@code ALTER TABLE ... ADD
	 * COLUMN} is not, and instances starting together take turns, as on the other databases.
	 */
	@Override
	public void lockSchema(JdbcTemplate jdbc, String name) {
		Integer locked = jdbc.queryForObject("SELECT GET_LOCK(?, ?)", Integer.class, lockName(name),
				SCHEMA_LOCK_TIMEOUT);
		if (locked == null || locked != 1) {
			throw new IllegalStateException("Could not take the lock " + lockName(name) + " within "
					+ SCHEMA_LOCK_TIMEOUT + " s to create or upgrade the durable calls' tables: another instance"
					+ " holds it");
		}
	}

	@Override
	public void unlockSchema(JdbcTemplate jdbc, String name) {
		jdbc.queryForObject("SELECT RELEASE_LOCK(?)", Integer.class, lockName(name));
	}

	/**
	 * An {@code ADD COLUMN} refused as a duplicate column name (error 1060): neither has
	 * {@code ADD COLUMN IF NOT EXISTS} in the SQL both accept, and each {@code ALTER TABLE} commits
	 * on its own, so a step that stopped after one finds its column at the next start.
	 */
	@Override
	public boolean alreadyApplied(String statement, SQLException failure) {
		boolean duplicateColumn = failure.getErrorCode() == DUPLICATE_COLUMN
				|| DUPLICATE_COLUMN_STATE.equals(failure.getSQLState());
		return duplicateColumn && statement.toUpperCase(Locale.ROOT).contains("ADD COLUMN");
	}

	private static String lockName(String name) {
		return SCHEMA_LOCK + Integer.toHexString(name.hashCode());
	}

	/**
	 * Refuses MySQL before 8.0 and MariaDB before 10.6, which have no {@code SKIP LOCKED}: without it
	 * every instance's claim would wait for the others' and for callers' open transactions.
	 */
	@Override
	public void requireVersion(String product, String version) {
		Matcher matcher = VERSION.matcher(version.trim());
		if (!matcher.matches()) {
			return;
		}
		boolean mariaDb = matcher.group(4).toLowerCase(Locale.ROOT).contains("mariadb")
				|| product.toLowerCase(Locale.ROOT).contains("mariadb");
		int major = Integer.parseInt(matcher.group(1));
		int minor = Integer.parseInt(matcher.group(2));
		boolean supported = mariaDb ? (major > 10 || (major == 10 && minor >= 6)) : major >= 8;
		if (!supported) {
			String name = mariaDb ? "MariaDB" : "MySQL";
			throw new IllegalStateException("Durable delayed calls need " + (mariaDb ? "MariaDB 10.6" : "MySQL 8.0")
					+ " or later, for SELECT ... FOR UPDATE SKIP LOCKED; the DataSource is " + name + " " + version
					+ ". Upgrade the server, or make the delayed methods in-memory (durable = false)");
		}
	}

}
