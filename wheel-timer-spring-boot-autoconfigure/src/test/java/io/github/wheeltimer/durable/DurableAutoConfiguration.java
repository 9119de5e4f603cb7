package io.github.wheeltimer.durable;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * The auto-configuration a durable test application runs on: a pooled {@code DataSource}, JDBC,
 * transactions, Jackson, AOP and an executor, as Spring Boot makes them, and the starter's timer and
 * durable calls. Not every auto-configuration of the tests' class path (Actuator, metrics, tracing,
 * web): the durable suites start an application hundreds of times, and one with only these takes
 * less than half the CPU (about 150 ms against 350 ms on the 2-core machine). A test that needs
 * more adds it ({@link WithActuator}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ImportAutoConfiguration({ AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
		JacksonAutoConfiguration.class, DataSourceAutoConfiguration.class,
		DataSourceTransactionManagerAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
		TransactionAutoConfiguration.class, WheelTimerAutoConfiguration.class,
		WheelTimerDurableAutoConfiguration.class })
@interface DurableAutoConfiguration {

}
