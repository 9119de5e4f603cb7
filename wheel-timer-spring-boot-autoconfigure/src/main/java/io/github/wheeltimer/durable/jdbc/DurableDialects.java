package io.github.wheeltimer.durable.jdbc;

import java.util.Locale;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Finds the {@link DurableDialect} of a database: from what its driver says it is, or from the
 * platform an application names ({@code wheel-timer.durable.jdbc.platform}).
 */
public final class DurableDialects {

	private DurableDialects() {
	}

	/**
	 * Finds the dialect of a database from what its driver says it is, through Spring Boot's
	 * {@link DatabaseDriver}.
	 * @param dataSource the database
	 * @return the dialect
	 * @throws IllegalStateException if the database cannot be reached, or is not supported (its
	 * product, or its version)
	 */
	public static DurableDialect of(DataSource dataSource) {
		String[] product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(dataSource,
					(metaData) -> new String[] { metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion() });
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Durable delayed calls cannot reach their database to find out what it"
					+ " is: " + ex.getMessage(), ex);
		}
		DatabaseDriver driver = DatabaseDriver.fromProductName(product[0]);
		DurableDialect dialect = forPlatform(driver.getId());
		if (dialect == null) {
			throw new IllegalStateException("Durable delayed calls support PostgreSQL, MySQL, MariaDB and H2; the"
					+ " DataSource is " + product[0] + ". Use one of those, or make the delayed methods in-memory"
					+ " (durable = false)");
		}
		dialect.requireVersion(product[0], product[1]);
		return dialect;
	}

	/**
	 * Returns the dialect of a platform named as Spring Boot's {@link DatabaseDriver} names it.
	 * @param platform {@code postgresql}, {@code mysql}, {@code mariadb} or {@code h2}, in any case
	 * @return the dialect, or {@code null} if durable calls do not support it
	 */
	public static @Nullable DurableDialect forPlatform(@Nullable String platform) {
		String id = (platform != null) ? platform.trim().toLowerCase(Locale.ROOT) : "";
		return switch (id) {
			case "postgresql" -> new PostgresDialect();
			case "mysql" -> new MySqlDialect();
			case "mariadb" -> MySqlDialect.mariaDb();
			case "h2" -> new H2Dialect();
			default -> null;
		};
	}

}
