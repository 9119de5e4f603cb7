package io.github.wheeltimer.console.security;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** The ways applications secure the console, one configuration each. */
final class ConsoleSecurity {

	private ConsoleSecurity() {
	}

	/**
	 * The configuration of {@code docs/production.md}: form login, Spring Security's default CSRF
	 * protection (the token kept in the session), operators ({@code OPS}) change, support staff
	 * ({@code SUPPORT}) look.
	 */
	@Configuration(proxyBeanMethods = false)
	static class FormLogin {

		@Bean
		SecurityFilterChain security(HttpSecurity http) {
			return http
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers(HttpMethod.GET, "/wheel-timer/**", "/actuator/wheeltimer/**")
					.hasAnyRole("OPS", "SUPPORT")
					.requestMatchers(EndpointRequest.toAnyEndpoint())
					.hasRole("OPS")
					.anyRequest()
					.authenticated())
				.formLogin(Customizer.withDefaults())
				.build();
		}

	}

	/**
	 * Form login with the CSRF setup Spring Security offers script-driven pages: the token in a
	 * cookie that script reads ({@code XSRF-TOKEN}), expected as it is stored in {@code X-XSRF-TOKEN}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class SpaCsrf {

		@Bean
		SecurityFilterChain security(HttpSecurity http) {
			return http
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers("/wheel-timer/**")
					.hasRole("OPS")
					.requestMatchers(EndpointRequest.toAnyEndpoint())
					.hasRole("OPS")
					.anyRequest()
					.authenticated())
				.formLogin(Customizer.withDefaults())
				.csrf((csrf) -> csrf.spa())
				.build();
		}

	}

	/**
	 * HTTP Basic with CSRF protection off, as many services that only answer scripts have it; and
	 * nobody deletes a whole method's calls from here.
	 */
	@Configuration(proxyBeanMethods = false)
	static class BasicWithoutCsrf {

		@Bean
		SecurityFilterChain security(HttpSecurity http) {
			return http
				.authorizeHttpRequests((requests) -> requests
					.requestMatchers(HttpMethod.DELETE, "/actuator/wheeltimer/durable/methods/**")
					.denyAll()
					.requestMatchers(HttpMethod.GET, "/wheel-timer/**", "/actuator/wheeltimer/**")
					.hasAnyRole("OPS", "SUPPORT")
					.requestMatchers(EndpointRequest.toAnyEndpoint())
					.hasRole("OPS")
					.anyRequest()
					.authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.disable())
				.build();
		}

	}

}
