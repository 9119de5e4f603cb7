package io.github.wheeltimer.benchmarks.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * D7's SQL of the harness's own, on a system's database and on connections no instance counts:
 * the waiting calls written in a few {@code INSERT ... SELECT}s, the plans of a system's
 * statements, and the bytes its table and indexes take. What is the system's own (its table, its
 * rows, its statements) comes from {@link DurableSystem#insertWaiting} and
 * {@link DurableSystem#plans}; what is the database's, from here.
 * <p>
 * Each waiting call is due between 30 and 60 days from now, at random: far beyond any poll's
 * window, so that no system should read them, and spread so that the index on the due time is as
 * a real backlog leaves it. The rows are made by the database from a series of numbers:
 * PostgreSQL's {@code generate_series}, MariaDB's {@code seq_1_to_N} (its SEQUENCE engine).
 */
final class WaitingCalls {

	/** Rows per statement, at most: a statement's transaction holds them all until its commit. */
	static final long CHUNK = 1_000_000;

	private WaitingCalls() {
	}

	/** A statement that writes calls numbered from {@code first} on, {@code size} of them, and how many it wrote. */
	interface Chunk {

		long write(long first, long size) throws SQLException;

	}

	/**
	 * Writes {@code count} rows in chunks of at most {@link #CHUNK} (and at least four chunks, when
	 * there are that many rows), each in autocommit, logging each one's time.
	 */
	static void inChunks(long firstCall, long count, Chunk chunk) throws SQLException {
		long size = Math.max(1, Math.min(CHUNK, (count + 3) / 4));
		long start = System.nanoTime();
		long written = 0;
		for (long done = 0; done < count; done += size) {
			long rows = Math.min(size, count - done);
			long chunkStart = System.nanoTime();
			written += chunk.write(firstCall + done, rows);
			System.err.printf(Locale.ROOT, "    %,d of %,d waiting calls written (%,d in %.1f s; %.1f s in all)%n",
					written, count, rows, (System.nanoTime() - chunkStart) / 1e9, (System.nanoTime() - start) / 1e9);
		}
		if (written != count) {
			throw new IllegalStateException("Wrote " + written + " waiting calls, not " + count);
		}
	}

	/** The due time of a waiting call, as SQL of the database's: 30 days ahead, plus up to 30 more at random. */
	static String due(boolean mariaDb) {
		return mariaDb ? "UTC_TIMESTAMP(6) + INTERVAL 30 DAY + INTERVAL FLOOR(RAND() * 2592000000000) MICROSECOND"
				: "now() + interval '30 days' + random() * interval '30 days'";
	}

	/**
	 * The rows the chunks are made of, as a derived table {@code w} of columns {@code call} (the
	 * call's number: {@code first} plus 1 to {@code size}) and {@code due}; binds {@code first}.
	 */
	static String series(boolean mariaDb, long size) {
		return mariaDb ? "(SELECT ? + seq AS call, " + due(true) + " AS due FROM seq_1_to_" + size + ") w"
				: "(SELECT CAST(? AS BIGINT) + n AS call, " + due(false) + " AS due FROM generate_series(1, " + size
						+ ") n) w";
	}

	/**
	 * A statement's plan, with its parameters bound as given, in a transaction rolled back after
	 * (an {@code EXPLAIN ANALYZE} of an update runs it): PostgreSQL's {@code EXPLAIN (ANALYZE,
	 * BUFFERS)}, its lines; MariaDB's {@code EXPLAIN}, a line per row, its columns named.
	 */
	static String explain(Connection connection, boolean mariaDb, String sql, List<?> parameters)
			throws SQLException {
		String explain = (mariaDb ? "EXPLAIN " : "EXPLAIN (ANALYZE, BUFFERS) ") + sql;
		try (PreparedStatement statement = connection.prepareStatement(explain)) {
			bind(statement, parameters);
			try (ResultSet rows = statement.executeQuery()) {
				return mariaDb ? table(rows) : lines(rows);
			}
		}
	}

	/**
	 * PostgreSQL's generic plan of a statement (the plan a server-side prepared statement may settle
	 * on after its fifth run), its parameters left unbound: {@code EXPLAIN (GENERIC_PLAN)}, which
	 * takes {@code $1}, {@code $2}... in place of the driver's {@code ?}, sent as it is: on a
	 * connection of its own in the driver's simple query mode (its extended one would bind none).
	 */
	static String genericPlan(String url, String sql) throws SQLException {
		StringBuilder numbered = new StringBuilder();
		int parameter = 0;
		for (char c : sql.toCharArray()) {
			if (c == '?') {
				numbered.append('$').append(++parameter);
			}
			else {
				numbered.append(c);
			}
		}
		java.util.Properties login = new java.util.Properties();
		login.setProperty("user", Database.user(url));
		login.setProperty("preferQueryMode", "simple");
		try (Connection connection = java.sql.DriverManager.getConnection(url, login);
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("EXPLAIN (GENERIC_PLAN) " + numbered)) {
			return lines(rows);
		}
	}

	static void bind(PreparedStatement statement, List<?> parameters) throws SQLException {
		for (int i = 0; i < parameters.size(); i++) {
			statement.setObject(i + 1, parameters.get(i));
		}
	}

	/** A heading, the statement as sent, and its plan, in Markdown. */
	static String section(String heading, String sql, List<?> parameters, String plan) {
		return String.format(Locale.ROOT, "%s%n%n```sql%n%s%n-- bound: %s%n```%n%n```%n%s```%n%n", heading, sql,
				parameters, plan);
	}

	/**
	 * The table's bytes on top of the waiting calls: PostgreSQL's {@code pg_relation_size} (the
	 * heap), {@code pg_indexes_size} and {@code pg_total_relation_size} (heap, TOAST and indexes),
	 * and each index's {@code pg_relation_size}; MariaDB's {@code information_schema.TABLES}
	 * ({@code data_length}, {@code index_length}, after {@code ANALYZE TABLE}) and each index's
	 * size from InnoDB's persistent statistics.
	 */
	static void sizes(Connection connection, boolean mariaDb, String table, DurableResult.Waiting waiting)
			throws SQLException {
		String totals = mariaDb
				? "SELECT data_length, index_length, data_length + index_length FROM information_schema.TABLES"
						+ " WHERE table_schema = DATABASE() AND table_name = ?"
				: "SELECT pg_relation_size(c), pg_indexes_size(c), pg_total_relation_size(c) FROM (SELECT"
						+ " CAST(? AS regclass) AS c) t";
		try (PreparedStatement statement = connection.prepareStatement(totals)) {
			statement.setString(1, table);
			try (ResultSet row = statement.executeQuery()) {
				if (row.next()) {
					waiting.tableBytes = row.getLong(1);
					waiting.indexBytes = row.getLong(2);
					waiting.totalBytes = row.getLong(3);
				}
			}
		}
		String indexes = mariaDb
				? "SELECT index_name, stat_value * @@innodb_page_size FROM mysql.innodb_index_stats"
						+ " WHERE database_name = DATABASE() AND table_name = ? AND stat_name = 'size' ORDER BY 1"
				: "SELECT CAST(indexrelid AS regclass)::text, pg_relation_size(indexrelid) FROM pg_index"
						+ " WHERE indrelid = CAST(? AS regclass) ORDER BY 1";
		StringBuilder text = new StringBuilder();
		try (PreparedStatement statement = connection.prepareStatement(indexes)) {
			statement.setString(1, table);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					long bytes = rows.getLong(2);
					text.append(String.format(Locale.ROOT, "%s: %,d bytes (%.1f per waiting call)%n", rows.getString(1),
							bytes, bytes / (double) waiting.waiting));
				}
			}
		}
		waiting.indexes = text.toString();
	}

	/** The rows of a system's table, on the harness's connection. */
	static long rows(Connection connection, String table) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
			row.next();
			return row.getLong(1);
		}
	}

	/** The longest common start of two texts: a statement's fixed part, before its lists of placeholders. */
	static String commonPrefix(String a, String b) {
		int n = 0;
		while (n < a.length() && n < b.length() && a.charAt(n) == b.charAt(n)) {
			n++;
		}
		return a.substring(0, n);
	}

	/** {@code ?, ?, ?}: as many placeholders as asked for. */
	static String placeholders(int count) {
		return String.join(", ", java.util.Collections.nCopies(count, "?"));
	}

	private static String lines(ResultSet rows) throws SQLException {
		StringBuilder plan = new StringBuilder();
		while (rows.next()) {
			plan.append(rows.getString(1)).append('\n');
		}
		return plan.toString();
	}

	private static String table(ResultSet rows) throws SQLException {
		ResultSetMetaData meta = rows.getMetaData();
		List<String> names = new ArrayList<>();
		for (int i = 1; i <= meta.getColumnCount(); i++) {
			names.add(meta.getColumnLabel(i));
		}
		StringBuilder plan = new StringBuilder(String.join(" | ", names)).append('\n');
		while (rows.next()) {
			List<String> values = new ArrayList<>();
			for (int i = 1; i <= names.size(); i++) {
				values.add(String.valueOf(rows.getString(i)));
			}
			plan.append(String.join(" | ", values)).append('\n');
		}
		return plan.toString();
	}

}
