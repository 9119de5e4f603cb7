package io.github.wheeltimer.benchmarks.durable;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

import javax.sql.DataSource;

import org.springframework.beans.factory.config.BeanPostProcessor;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A DataSource that counts what each system sends to the database: every {@code execute*} and
 * {@code executeBatch} call on a statement of its connections is one statement (one round trip; a
 * batch of a hundred inserts counts once), and every {@code commit()} is counted apart, as it is a
 * round trip of its own. Each system under measurement is given one, wrapped around its pool, so
 * the pool's own validation queries are not counted.
 * <p>
 * It also keeps a count and the time spent per SQL text, so that a figure can be explained: which
 * statement a system sends while idle, how often, and which one a slow step waits on; and the rows
 * each text changed or returned (an update's count, a query's rows read by the caller), so that a
 * step can tell how many rows a system's claim took.
 */
final class CountingDataSource extends DelegatingDataSource {

	private final LongAdder statements = new LongAdder();

	private final LongAdder commits = new LongAdder();

	private final Map<String, Tally> bySql = new ConcurrentHashMap<>();

	CountingDataSource(DataSource target) {
		super(target);
	}

	@Override
	public Connection getConnection() throws SQLException {
		return counting(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return counting(super.getConnection(username, password));
	}

	/** The counts so far; subtract two of them to get what happened in between. */
	Counts counts() {
		Map<String, Sql> sql = new LinkedHashMap<>();
		this.bySql.forEach(
				(text, tally) -> sql.put(text, new Sql(tally.count.sum(), tally.nanos.sum(), tally.rows.sum())));
		return new Counts(this.statements.sum(), this.commits.sum(), sql);
	}

	private Connection counting(Connection connection) {
		return (Connection) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(),
				new Class<?>[] { Connection.class }, new ConnectionHandler(connection));
	}

	private Tally executed(String sql, long nanos) {
		this.statements.increment();
		Tally tally = this.bySql.computeIfAbsent(key(sql), (k) -> new Tally());
		tally.count.increment();
		tally.nanos.add(nanos);
		return tally;
	}

	/** Whitespace differs between drivers' and libraries' formatting: one line per statement. */
	static String key(String sql) {
		return (sql != null) ? sql.strip().replaceAll("\\s+", " ") : "(batch of plain statements)";
	}

	/** The rows an {@code execute*} call reports: an update count, a batch's counts; a result set's are counted as read. */
	private static long rowsOf(Object result) {
		if (result instanceof Integer count) {
			return Math.max(0, count);
		}
		if (result instanceof Long count) {
			return Math.max(0, count);
		}
		long rows = 0;
		if (result instanceof int[] counts) {
			for (int count : counts) {
				rows += Math.max(0, count);
			}
		}
		else if (result instanceof long[] counts) {
			for (long count : counts) {
				rows += Math.max(0, count);
			}
		}
		return rows;
	}

	private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			// The caller must see the driver's SQLException, not the reflection wrapper.
			throw ex.getCause();
		}
	}

	/** Hands out counting statements; everything else goes straight to the real connection. */
	private final class ConnectionHandler implements InvocationHandler {

		private final Connection target;

		ConnectionHandler(Connection target) {
			this.target = target;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			String name = method.getName();
			if (name.equals("commit")) {
				CountingDataSource.this.commits.increment();
			}
			else if (name.equals("unwrap") && args[0] == Connection.class) {
				return proxy;
			}
			Object result = CountingDataSource.invoke(this.target, method, args);
			if (result instanceof Statement statement) {
				// prepareStatement and prepareCall know their SQL now; createStatement learns it
				// at execute.
				String sql = (name.startsWith("prepare") && args != null && args[0] instanceof String text) ? text
						: null;
				Class<?> type = (statement instanceof CallableStatement) ? CallableStatement.class
						: (statement instanceof PreparedStatement) ? PreparedStatement.class : Statement.class;
				return Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] { type },
						new StatementHandler(statement, sql, proxy));
			}
			return result;
		}

	}

	/** Counts each execution; a plain Statement's SQL is its argument. */
	private final class StatementHandler implements InvocationHandler {

		private final Statement target;

		private final String preparedSql;

		private final Object connectionProxy;

		/** The tally of the statement's last execution, whose rows a result set read after it adds to. */
		private Tally lastTally;

		StatementHandler(Statement target, String preparedSql, Object connectionProxy) {
			this.target = target;
			this.preparedSql = preparedSql;
			this.connectionProxy = connectionProxy;
		}

		@Override
		public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
			String name = method.getName();
			if (name.startsWith("execute")) {
				String sql = (args != null && args.length > 0 && args[0] instanceof String text) ? text
						: this.preparedSql;
				long start = System.nanoTime();
				Object result;
				try {
					result = CountingDataSource.invoke(this.target, method, args);
				}
				catch (Throwable ex) {
					this.lastTally = CountingDataSource.this.executed(sql, System.nanoTime() - start);
					throw ex;
				}
				Tally tally = CountingDataSource.this.executed(sql, System.nanoTime() - start);
				this.lastTally = tally;
				if (result instanceof ResultSet rows) {
					return countingRows(rows, tally);
				}
				tally.rows.add(rowsOf(result));
				return result;
			}
			if (name.equals("getResultSet")) {
				// After execute(): its rows are the last statement's.
				Object result = CountingDataSource.invoke(this.target, method, args);
				Tally tally = this.lastTally;
				return (tally != null && result instanceof ResultSet rows) ? countingRows(rows, tally) : result;
			}
			if (name.equals("getConnection")) {
				// Code that closes a statement's connection must close the counting one.
				return this.connectionProxy;
			}
			return CountingDataSource.invoke(this.target, method, args);
		}

	}

	/** A result set that adds each row its caller reads to its statement's rows. */
	private static ResultSet countingRows(ResultSet rows, Tally tally) {
		return (ResultSet) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(),
				new Class<?>[] { ResultSet.class }, (proxy, method, args) -> {
					Object result = CountingDataSource.invoke(rows, method, args);
					if (method.getName().equals("next") && Boolean.TRUE.equals(result)) {
						tally.rows.increment();
					}
					return result;
				});
	}

	/** Executions of one SQL text so far. */
	private static final class Tally {

		private final LongAdder count = new LongAdder();

		private final LongAdder nanos = new LongAdder();

		private final LongAdder rows = new LongAdder();

	}

	/**
	 * One SQL text's executions.
	 *
	 * @param count how many
	 * @param nanos the time the caller waited on them, round trips included
	 * @param rows the rows they changed (update counts) or returned (rows the caller read)
	 */
	record Sql(long count, long nanos, long rows) {

		Sql plus(Sql other) {
			return new Sql(this.count + other.count, this.nanos + other.nanos, this.rows + other.rows);
		}

	}

	/**
	 * Counts at one moment.
	 *
	 * @param statements statements executed (a batch counts once)
	 * @param commits explicit commits
	 * @param bySql statements per SQL text
	 */
	record Counts(long statements, long commits, Map<String, Sql> bySql) {

		/** What was counted between {@code earlier} and this. */
		Counts minus(Counts earlier) {
			Map<String, Sql> sql = new LinkedHashMap<>();
			this.bySql.forEach((text, now) -> {
				Sql before = earlier.bySql.getOrDefault(text, new Sql(0, 0, 0));
				if (now.count() > before.count() || now.rows() > before.rows()) {
					sql.put(text, new Sql(now.count() - before.count(), now.nanos() - before.nanos(),
							now.rows() - before.rows()));
				}
			});
			return new Counts(this.statements - earlier.statements, this.commits - earlier.commits, sql);
		}

		/** This and {@code other} together. */
		Counts plus(Counts other) {
			Map<String, Sql> sql = new LinkedHashMap<>(this.bySql);
			other.bySql.forEach((text, count) -> sql.merge(text, count, Sql::plus));
			return new Counts(this.statements + other.statements, this.commits + other.commits, sql);
		}

		/** The rows that the statements whose text {@code sql} accepts changed or returned. */
		long rows(Predicate<String> sql) {
			return this.bySql.entrySet()
				.stream()
				.filter((entry) -> sql.test(entry.getKey()))
				.mapToLong((entry) -> entry.getValue().rows())
				.sum();
		}

		/** The statements, most frequent first, one a line with the time spent on them, for the log. */
		String describe(String indent) {
			// Statements that differ only past the abbreviation (a LIMIT, an IN list) add up.
			Map<String, Sql> abbreviated = new LinkedHashMap<>();
			this.bySql.forEach((sql, count) -> abbreviated.merge(abbreviated(sql), count, Sql::plus));
			StringBuilder text = new StringBuilder();
			abbreviated.entrySet()
				.stream()
				.sorted(Comparator.comparingLong((Map.Entry<String, Sql> entry) -> entry.getValue().count())
					.reversed())
				.forEach((entry) -> text.append(indent)
					.append(String.format(Locale.ROOT, "%7d  %9.1f ms  ", entry.getValue().count(),
							entry.getValue().nanos() / 1e6))
					.append(entry.getKey())
					.append('\n'));
			return text.toString();
		}

		private static String abbreviated(String sql) {
			return (sql.length() <= 140) ? sql : sql.substring(0, 137) + "...";
		}

	}

	/**
	 * Wraps the application's DataSource in a counting one, as the instances under test see it.
	 * @return a bean post-processor for a benchmarked application
	 */
	static BeanPostProcessor wrapping() {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				return (bean instanceof DataSource dataSource && !(bean instanceof CountingDataSource))
						? new CountingDataSource(dataSource) : bean;
			}

		};
	}

}
