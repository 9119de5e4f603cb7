package io.github.wheeltimer.console;

import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.autoconfigure.WheelTimerEndpointAutoConfiguration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletPath;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.security.web.access.WebInvocationPrivilegeEvaluator;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Auto-configuration of the operator console: a page at {@code wheel-timer.console.path} (default
 * {@code /wheel-timer}) that shows the timers, the durable calls and the instances sharing their
 * database, and changes them, through the {@code wheeltimer} Actuator endpoint on the same origin.
 * <p>
 * Off unless {@code wheel-timer.console.enabled=true}. The page holds no data and has no access of
 * its own: what the endpoint refuses the browser, the console cannot do, so the endpoint's
 * exposure, its access ({@code management.endpoint.wheeltimer.access}; a read-only endpoint shows a
 * read-only console) and the application's Spring Security rules for Actuator apply to it as they
 * are. Serve it to operators only, as Actuator is. With Spring Security, the page sends the CSRF
 * token its filters hand to the application's pages with every change, and tells an operator
 * whether a refused change was refused for that token, for their sign-in or for their roles.
 * <p>
 * Servlet applications with Spring MVC and Actuator only: a WebFlux application gets no console.
 * Enabled, it refuses to start when the page could not reach the endpoint: the endpoint is off, is
 * not exposed over HTTP, or Actuator runs on a management port of its own (another origin).
 */
@AutoConfiguration(after = { WheelTimerEndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class })
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, DispatcherServletPath.class, PathMappedEndpoints.class,
		WebEndpointAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "wheel-timer.console.enabled")
@EnableConfigurationProperties(WheelTimerConsoleProperties.class)
@ImportRuntimeHints(ConsoleRuntimeHints.class)
public final class WheelTimerConsoleAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "wheelTimerConsoleRoutes")
	RouterFunction<ServerResponse> wheelTimerConsoleRoutes(WheelTimerConsoleProperties properties,
			Environment environment, ObjectProvider<PathMappedEndpoints> endpoints,
			ObjectProvider<WheelTimerEndpoint> endpoint, ObjectProvider<DispatcherServletPath> servletPath,
			ObjectProvider<ConsoleAccess.Security> security) {
		String path = ConsolePath.check(properties.getPath());
		String endpointPath = ConsoleEndpointLocation.find(environment, endpoints.getIfAvailable(),
				endpoint.getIfAvailable() != null);
		DispatcherServletPath dispatcher = servletPath.getIfAvailable();
		String prefix = (dispatcher != null) ? dispatcher.getPrefix() : "";
		ConsolePage page = new ConsolePage(prefix + endpointPath);
		ConsoleAccess access = new ConsoleAccess(prefix + endpointPath, security.getIfAvailable());
		return RouterFunctions.route()
			.GET(path, page::redirect)
			.GET(path + "/", page::page)
			.GET(path + "/access", access::access)
			.build();
	}

	@Bean
	@ConditionalOnMissingBean(name = "wheelTimerConsoleResources")
	WebMvcConfigurer wheelTimerConsoleResources(WheelTimerConsoleProperties properties) {
		return new ConsoleResources(ConsolePath.check(properties.getPath()));
	}

	/** With Spring Security, the page learns its CSRF token and why a change was refused. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(WebInvocationPrivilegeEvaluator.class)
	static class SpringSecurityConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "wheelTimerConsoleSecurity")
		ConsoleAccess.Security wheelTimerConsoleSecurity(ObjectProvider<WebInvocationPrivilegeEvaluator> rules) {
			return new SpringSecurityAccess(rules);
		}

	}

}
