package io.github.wheeltimer.autoconfigure;

import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;

/**
 * The main class of the child JVM of {@link JvmExitWarningTests}: an application without a web
 * server makes a delayed call, and its {@code main()} returns, as a user's first try does.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ExitingApplication {

	public static void main(String[] args) {
		new SpringApplicationBuilder(ExitingApplication.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.autoconfigure.exclude="
					+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
			.run(args)
			.getBean(Reminders.class)
			.remind("o-1");
		System.out.println("CALLED");
	}

	@Bean
	Reminders reminders() {
		return new Reminders();
	}

	public static class Reminders {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.SECONDS)
		public void remind(String orderId) {
		}

	}

}
