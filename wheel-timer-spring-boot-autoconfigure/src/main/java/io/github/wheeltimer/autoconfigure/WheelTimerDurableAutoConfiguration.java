package io.github.wheeltimer.autoconfigure;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import javax.sql.DataSource;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.actuate.DefaultDurableCallsOperations;
import io.github.wheeltimer.actuate.DurableCallsHealthIndicator;
import io.github.wheeltimer.actuate.DurableCallsMetrics;
import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.durable.DurableCalls;
import io.github.wheeltimer.durable.cooperation.DurableSettings;
import io.github.wheeltimer.durable.engine.DurableEngine;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableDialects;
import io.github.wheeltimer.durable.jdbc.DurableSchemaInitializer;
import io.github.wheeltimer.durable.jdbc.DurableTables;
import io.github.wheeltimer.durable.jdbc.JdbcCallRepository;
import io.github.wheeltimer.durable.jdbc.JdbcInstanceRepository;
import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.micrometer.core.instrument.binder.MeterBinder;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Auto-configuration of durable delayed calls ({@code @DelayedExecution(durable = true)}): with a
 * single {@link DataSource}, Spring JDBC and Jackson on the class path, the database's
 * {@link DurableDialect} (detected, named by {@code wheel-timer.durable.jdbc.platform}, or a bean
 * of the application's), their tables (see {@link DurableSchemaInitializer}), the repositories of
 * calls and instances, this instance's {@link DurableEngine}, and the {@link DurableCalls} bean that
 * cancels them by key; with Actuator, their health indicator ({@code wheelTimerDurable}) and
 * meters ({@code wheel.timer.durable.*}).
 */
@AutoConfiguration(after = { WheelTimerAutoConfiguration.class, DataSourceAutoConfiguration.class,
		JacksonAutoConfiguration.class })
@ConditionalOnClass({ JdbcTemplate.class, JsonMapper.class, DataSourceScriptDatabaseInitializer.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBean(DelayedMethodRegistry.class)
@ConditionalOnBooleanProperty(name = "wheel-timer.durable.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WheelTimerDurableProperties.class)
@ImportRuntimeHints(DurableCallsRuntimeHints.class)
public final class WheelTimerDurableAutoConfiguration {

	/**
	 * What differs on the application's database: named by {@code wheel-timer.durable.jdbc.platform},
	 * else found from the {@code DataSource} once, here.
	 */
	@Bean
	@ConditionalOnMissingBean
	DurableDialect wheelTimerDurableDialect(DataSource dataSource, WheelTimerDurableProperties properties,
			Environment environment) {
		String platform = properties.getJdbc().getPlatform();
		if (platform == null || platform.isBlank()) {
			return DurableDialects.of(dataSource);
		}
		DurableDialect dialect = DurableDialects.forPlatform(platform);
		if (dialect == null) {
			throw InvalidPropertyValues.invalid(environment, "wheel-timer.durable.jdbc.platform", platform,
					"must be one of postgresql, mysql, mariadb, h2 (or leave it unset to detect it from the DataSource)");
		}
		return dialect;
	}

	/** The tables' names, from {@code wheel-timer.durable.jdbc.table-prefix}, checked once. */
	@Bean
	@ConditionalOnMissingBean
	DurableTables wheelTimerDurableTables(WheelTimerDurableProperties properties, Environment environment) {
		return DurableTables.withPrefix(tablePrefix(properties, environment));
	}

	@Bean
	@ConditionalOnMissingBean
	DurableSchemaInitializer wheelTimerDurableSchemaInitializer(DataSource dataSource, DurableDialect dialect,
			DurableTables tables, WheelTimerDurableProperties properties) {
		return new DurableSchemaInitializer(dataSource, dialect, properties.getJdbc().getInitializeSchema(),
				tables.prefix(), properties.getLease());
	}

	@Bean
	@ConditionalOnMissingBean(CallRepository.class)
	JdbcCallRepository wheelTimerDurableCallRepository(DataSource dataSource, DurableDialect dialect,
			DurableTables tables, WheelTimerDurableProperties properties) {
		return new JdbcCallRepository(dataSource, dialect, tables, properties.getLease());
	}

	@Bean
	@ConditionalOnMissingBean(InstanceRepository.class)
	JdbcInstanceRepository wheelTimerDurableInstanceRepository(DataSource dataSource, DurableDialect dialect,
			DurableTables tables) {
		return new JdbcInstanceRepository(dataSource, dialect, tables);
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	DurableEngine wheelTimerDurableEngine(DataSource dataSource, DurableDialect dialect, DurableTables tables,
			CallRepository calls, InstanceRepository instances, WheelTimerDurableProperties properties,
			ObjectProvider<JsonMapper> mapper, ObjectProvider<HashedWheelTimer.Builder> builders,
			ObjectProvider<DurableSchemaInitializer> schema, BeanFactory beanFactory, Environment environment) {
		DurableSettings settings = settings(properties, environment);
		// Created first, so that its scripts run first, in a context without Spring Boot's database
		// initialization ordering too; then the tables' version is checked, so that startup fails
		// saying which scripts to run rather than the first poll.
		schema.getIfAvailable();
		if (calls instanceof JdbcCallRepository) {
			tables.requireSchema(new JdbcTemplate(dataSource), dialect);
		}
		return new DurableEngine(calls, instances, settings, mapper.getIfAvailable(JsonMapper::new), builders.getObject(),
				beanFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	DurableCalls wheelTimerDurableCalls(DurableEngine engine) {
		return engine.admin();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthContributor.class, ConditionalOnEnabledHealthIndicator.class })
	@ConditionalOnEnabledHealthIndicator("wheeltimer")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "wheelTimerDurableHealthIndicator")
		DurableCallsHealthIndicator wheelTimerDurableHealthIndicator(DurableEngine calls) {
			return new DurableCallsHealthIndicator(calls);
		}

	}

	/** What the wheeltimer endpoint reads and changes of the durable calls, when Actuator is there. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Endpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DefaultDurableCallsOperations wheelTimerDurableCallsOperations(DurableEngine calls) {
			return new DefaultDurableCallsOperations(calls);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterBinder.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DurableCallsMetrics wheelTimerDurableCallsMetrics(DurableEngine calls) {
			return new DurableCallsMetrics(calls);
		}

	}

	private static DurableSettings settings(WheelTimerDurableProperties properties, Environment environment) {
		String prefix = "wheel-timer.durable.";
		requirePositive(environment, prefix + "horizon", properties.getHorizon());
		requirePositive(environment, prefix + "poll-interval", properties.getPollInterval());
		requirePositive(environment, prefix + "heartbeat-interval", properties.getHeartbeatInterval());
		requirePositive(environment, prefix + "lease", properties.getLease());
		requirePositive(environment, prefix + "failed-retention", properties.getFailedRetention());
		requirePositive(environment, prefix + "shutdown-timeout", properties.getShutdownTimeout());
		if (properties.getPollInterval().compareTo(properties.getHorizon()) >= 0) {
			throw InvalidPropertyValues.invalid(environment, prefix + "poll-interval", properties.getPollInterval(),
					"must be shorter than wheel-timer.durable.horizon (" + properties.getHorizon()
							+ "), so that a call is claimed before it falls due");
		}
		if (properties.getLease().compareTo(properties.getHeartbeatInterval().multipliedBy(2)) < 0) {
			throw InvalidPropertyValues.invalid(environment, prefix + "lease", properties.getLease(),
					"must be at least twice wheel-timer.durable.heartbeat-interval ("
							+ properties.getHeartbeatInterval() + "), or a live instance could be declared dead");
		}
		if (properties.getBatchSize() < 1) {
			throw InvalidPropertyValues.invalid(environment, prefix + "batch-size", properties.getBatchSize(),
					"must be 1 or more");
		}
		String name = properties.getInstanceName();
		boolean configured = name != null && !name.isBlank();
		if (configured && (name.trim().length() > 200 || name.indexOf('\0') >= 0)) {
			// It decides which instance's calls a start takes over: stored cut or changed, two names
			// that differ could become one.
			throw InvalidPropertyValues.invalid(environment, prefix + "instance-name", name,
					"must be at most 200 characters (UTF-16 units), without NUL, as it is stored so");
		}
		if (!configured) {
			name = environment.getProperty("spring.application.name", "application") + "@"
					+ ManagementFactory.getRuntimeMXBean().getName();
		}
		return new DurableSettings(properties.getHorizon(), properties.getPollInterval(),
				properties.getHeartbeatInterval(), properties.getLease(), properties.getBatchSize(),
				properties.getFailedRetention(), name.trim(), configured,
				properties.getShutdownTimeout());
	}

	private static String tablePrefix(WheelTimerDurableProperties properties, Environment environment) {
		String prefix = properties.getJdbc().getTablePrefix();
		if (!prefix.matches("[A-Za-z0-9_]*")) {
			throw InvalidPropertyValues.invalid(environment, "wheel-timer.durable.jdbc.table-prefix", prefix,
					"may only hold letters, digits and underscores, as it becomes part of SQL statements");
		}
		return prefix;
	}

	private static void requirePositive(Environment environment, String property, Duration value) {
		if (value.isNegative() || value.isZero()) {
			throw InvalidPropertyValues.invalid(environment, property, value, "must be positive");
		}
	}

}
