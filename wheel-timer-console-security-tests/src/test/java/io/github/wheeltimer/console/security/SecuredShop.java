package io.github.wheeltimer.console.security;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * An application with durable calls and the console, whose security each test class picks from
 * {@link ConsoleSecurity}. Two users: {@value #OPERATOR}, with the {@code OPS} role, and
 * {@value #SUPPORT}, with {@code SUPPORT}; both sign in with {@value #PASSWORD}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class SecuredShop {

	static final String OPERATOR = "ops";

	static final String SUPPORT = "support";

	static final String PASSWORD = "wheel-timer-test";

	@Bean
	Payments payments() {
		return new Payments();
	}

	@Bean
	UserDetailsService users() {
		return new InMemoryUserDetailsManager(
				User.withUsername(OPERATOR).password("{noop}" + PASSWORD).roles("OPS").build(),
				User.withUsername(SUPPORT).password("{noop}" + PASSWORD).roles("SUPPORT").build());
	}

}
