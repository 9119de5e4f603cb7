package io.github.wheeltimer.console;

import java.util.Locale;
import java.util.List;

import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.core.env.Environment;

/**
 * Where the page finds the {@code wheeltimer} endpoint, below the servlet context path; or why it
 * cannot, as a startup failure that names the property to change. The page reads the endpoint from
 * its own origin only, so an endpoint that is off, not exposed over HTTP, or on a management port
 * of its own leaves it nothing to show.
 */
final class ConsoleEndpointLocation {

	static final EndpointId ENDPOINT_ID = EndpointId.of("wheeltimer");

	private ConsoleEndpointLocation() {
	}

	/**
	 * Returns the endpoint's path, such as {@code /actuator/wheeltimer}, below the servlet context
	 * path and the dispatcher servlet's path.
	 * @param environment the application's environment
	 * @param endpoints the web endpoints as Actuator maps them, or {@code null} if it maps none
	 * @param endpointBean whether the context has the {@link WheelTimerEndpoint}
	 * @throws InvalidConfigurationPropertyValueException naming the property that keeps the page
	 * from the endpoint
	 */
	static String find(Environment environment, @Nullable PathMappedEndpoints endpoints, boolean endpointBean) {
		ManagementPortType port = ManagementPortType.get(environment);
		if (port != ManagementPortType.SAME) {
			String value = environment.getProperty("management.server.port", "");
			throw new InvalidConfigurationPropertyValueException("management.server.port", value,
					((port == ManagementPortType.DISABLED) ? "Actuator is not served over HTTP"
							: "Actuator is served on a port of its own, another origin than the console's page")
							+ ", and the console (wheel-timer.console.enabled) reads the wheeltimer endpoint only from"
							+ " the page's own origin. Serve Actuator on the application's port (remove"
							+ " management.server.port), or turn the console off");
		}
		String path = (endpoints != null) ? endpoints.getPath(ENDPOINT_ID) : null;
		if (path != null) {
			return path;
		}
		String access = accessProperty(environment);
		if (!endpointBean && access != null) {
			throw new InvalidConfigurationPropertyValueException(access, environment.getProperty(access),
					"The wheeltimer endpoint is off, and the console (wheel-timer.console.enabled) has nothing"
							+ " else to read. Set it to read-only (a read-only console) or unrestricted, or turn the"
							+ " console off");
		}
		String include = "management.endpoints.web.exposure.include";
		// Bound, not read as one string: in YAML the list is often written one item per line.
		String exposed = Binder.get(environment)
			.bind(include, Bindable.listOf(String.class))
			.map((names) -> String.join(",", names))
			.orElse("");
		throw new InvalidConfigurationPropertyValueException(include, exposed,
				"The wheeltimer endpoint is not exposed over HTTP, and the console (wheel-timer.console.enabled)"
						+ " reads it over HTTP only. Add wheeltimer to it (Actuator exposes only health when it is"
						+ " not set, and leave it out of management.endpoints.web.exposure.exclude), or turn the"
						+ " console off");
	}

	/** @return the property that takes all access away from the endpoint, or {@code null} if none does */
	private static @Nullable String accessProperty(Environment environment) {
		for (String name : List.of("management.endpoint.wheeltimer.access", "management.endpoints.access.max-permitted")) {
			if (isNone(environment.getProperty(name))) {
				return name;
			}
		}
		String own = environment.getProperty("management.endpoint.wheeltimer.access");
		String fallback = "management.endpoints.access.default";
		return (own == null && isNone(environment.getProperty(fallback))) ? fallback : null;
	}

	private static boolean isNone(@Nullable String access) {
		return access != null && access.trim().toLowerCase(Locale.ROOT).equals("none");
	}

}
