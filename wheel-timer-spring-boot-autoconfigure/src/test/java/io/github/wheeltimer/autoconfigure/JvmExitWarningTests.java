package io.github.wheeltimer.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.autoconfigure.ExitingApplication.Reminders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application without a web server whose {@code main()} returns exits at once, taking its
 * delayed calls with it: the starter says so, and what to set, when that is why the JVM exits.
 */
@ExtendWith(OutputCaptureExtension.class)
class JvmExitWarningTests {

	private static final String WARNING = "The JVM is exiting because its last non-daemon thread ended: main()"
			+ " returned, and nothing keeps this application running (it has no web server, and"
			+ " spring.main.keep-alive is not true). Its delayed calls end with it: 1 in-memory call never ran."
			+ " Set spring.main.keep-alive=true to keep the application running.";

	@Test
	void aJvmThatExitsBecauseMainReturnedSaysToKeepTheApplicationAlive() throws Exception {
		Path output = Files.createTempFile("exiting-application", ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				ExitingApplication.class.getName())
			.redirectErrorStream(true)
			.redirectOutput(output.toFile())
			.start();
		try {
			assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the JVM exits on its own").isTrue();
			String log = Files.readString(output);
			assertThat(log).contains("CALLED").contains(WARNING);
		}
		finally {
			child.destroyForcibly();
			Files.deleteIfExists(output);
		}
	}

	@Test
	void aContextClosedWhileTheJvmGoesOnSaysNothingOfIt(CapturedOutput output) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(ExitingApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.autoconfigure.exclude="
					+ "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
			.run();
		context.getBean(Reminders.class).remind("o-1");
		context.close();
		assertThat(output).contains("stopped with 1 delayed call that never ran").doesNotContain("The JVM is exiting");
	}

}
