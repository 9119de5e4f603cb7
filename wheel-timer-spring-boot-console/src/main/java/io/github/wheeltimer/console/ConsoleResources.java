package io.github.wheeltimer.console;

import org.springframework.http.CacheControl;
import org.springframework.web.servlet.config.annotation.ResourceHandlerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Serves the console's scripts and styles below its path, from the jar. They carry no version in
 * their names, so a browser asks again each time and gets a 304 while they are unchanged: after an
 * upgrade, the page never runs one version's script with another's.
 */
final class ConsoleResources implements WebMvcConfigurer {

	static final String LOCATION = "classpath:/META-INF/wheel-timer-console/";

	private final String path;

	ConsoleResources(String path) {
		this.path = path;
	}

	@Override
	public void addResourceHandlers(ResourceHandlerRegistry registry) {
		registry.addResourceHandler(this.path + "/**")
			.addResourceLocations(LOCATION)
			.setCacheControl(CacheControl.noCache());
	}

}
