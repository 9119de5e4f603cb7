package io.github.wheeltimer.console;

import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerEndpointAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

class WheelTimerConsoleAutoConfigurationTests {

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(AopAutoConfiguration.class,
			TaskExecutionAutoConfiguration.class, WheelTimerAutoConfiguration.class,
			WheelTimerEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
			WebEndpointAutoConfiguration.class, DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
			WheelTimerConsoleAutoConfiguration.class);

	private final WebApplicationContextRunner contextRunner = new WebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("management.endpoints.web.exposure.include=health,wheeltimer");

	@Test
	void consoleIsOffByDefault() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean("wheelTimerConsoleRoutes")
			.doesNotHaveBean(WheelTimerConsoleProperties.class));
	}

	@Test
	void consoleIsServedWhenEnabled() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true").run((context) -> {
			assertThat(context).hasBean("wheelTimerConsoleRoutes").hasBean("wheelTimerConsoleResources");
			assertThat(context.getBean(WheelTimerConsoleProperties.class).getPath()).isEqualTo("/wheel-timer");
		});
	}

	@Test
	void withSpringSecurityOnTheClassPathThePageAsksItForItsAccess() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true")
			.run((context) -> assertThat(context).hasSingleBean(ConsoleAccess.Security.class));
	}

	@Test
	void withoutSpringSecurityTheConsoleIsServedAllTheSame() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true")
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("wheelTimerConsoleRoutes")
				.doesNotHaveBean(ConsoleAccess.Security.class));
	}

	@Test
	void consoleTakesAPathOfItsOwn() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true", "wheel-timer.console.path=/ops/timers")
			.run((context) -> assertThat(context.getBean(WheelTimerConsoleProperties.class).getPath())
				.isEqualTo("/ops/timers"));
	}

	@ParameterizedTest
	@ValueSource(strings = { "wheel-timer", "/", "/wheel-timer/", "/ops/*", "/ops/**", "/ops/{name}", "/what?",
			"/two words", "/a//b" })
	void aPathThatIsNotALiteralOneIsRefusedAtStartup(String path) {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true", "wheel-timer.console.path=" + path)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property wheel-timer.console.path with value '" + path + "' is invalid")
				.hasMessageContaining("It must be a literal path that starts with '/'"));
	}

	@Test
	void anEndpointNotExposedOverHttpFailsTheStartupNamingTheExposure() {
		this.contextRunner
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property management.endpoints.web.exposure.include with value 'health' is invalid")
				.hasMessageContaining("The wheeltimer endpoint is not exposed over HTTP"));
	}

	@Test
	void anExposureListedItemByItemIsQuotedWhole() {
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoints.web.exposure.include[0]=health",
					"management.endpoints.web.exposure.include[1]=metrics")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining(
						"Property management.endpoints.web.exposure.include with value 'health,metrics' is invalid"));
	}

	@Test
	void anEndpointExcludedFromTheWebFailsTheStartup() {
		this.contextRunner
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoints.web.exposure.include=*",
					"management.endpoints.web.exposure.exclude=wheeltimer")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("The wheeltimer endpoint is not exposed over HTTP"));
	}

	@Test
	void anEndpointWithNoAccessFailsTheStartupNamingItsAccess() {
		this.contextRunner
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoint.wheeltimer.access=NONE")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property management.endpoint.wheeltimer.access with value 'NONE' is invalid")
				.hasMessageContaining("The wheeltimer endpoint is off"));
	}

	@Test
	void aReadOnlyEndpointServesTheConsole() {
		this.contextRunner
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoint.wheeltimer.access=READ_ONLY")
			.run((context) -> assertThat(context).hasBean("wheelTimerConsoleRoutes"));
	}

	@Test
	void actuatorOnAPortOfItsOwnFailsTheStartupNamingThePort() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true", "management.server.port=9090")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("Property management.server.port with value '9090' is invalid")
				.hasMessageContaining("another origin than the console's page"));
	}

	@Test
	void actuatorOnTheServersOwnPortServesTheConsole() {
		this.contextRunner
			.withPropertyValues("wheel-timer.console.enabled=true", "server.port=8080", "management.server.port=8080")
			.run((context) -> assertThat(context).hasBean("wheelTimerConsoleRoutes"));
	}

	@Test
	void consoleIsNotServedOutsideAServletApplication() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("wheel-timer.console.enabled=true", "management.endpoints.web.exposure.include=wheeltimer")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("wheelTimerConsoleRoutes"));
	}

	@Test
	void consoleIsNotServedWithoutSpringMvc() {
		this.contextRunner.withPropertyValues("wheel-timer.console.enabled=true")
			.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).doesNotHaveBean("wheelTimerConsoleRoutes"));
	}

}
