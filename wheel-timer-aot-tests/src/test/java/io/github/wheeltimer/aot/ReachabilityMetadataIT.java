package io.github.wheeltimer.aot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What this build's ahead-of-time processing wrote for a native image of the application: the
 * delaying proxy of the bean with delayed methods, generated at build time (no class can be made
 * at run time in a native image), and the starter's hints: the methods, a durable method's
 * parameter type, the schema scripts, the endpoint's descriptors.
 */
class ReachabilityMetadataIT {

	private static final Path METADATA = Path.of("target", "spring-aot", "main", "resources", "META-INF", "native-image",
			"io.github.wheeltimer", "wheel-timer-aot-tests", "reachability-metadata.json");

	@Test
	void theDelayingProxyIsGeneratedAtBuildTimeAndKept() throws IOException {
		List<String> types = types();
		assertThat(types).anyMatch((type) -> type.startsWith("io.github.wheeltimer.aot.Reminders$$SpringCGLIB$$"));
		assertThat(Files.exists(Path.of("target", "classes", "io", "github", "wheeltimer", "aot",
				"Reminders$$SpringCGLIB$$0.class"))).isTrue();
	}

	@Test
	void theStartersHintsAreThere() throws IOException {
		assertThat(types()).contains("io.github.wheeltimer.aot.Order",
				"io.github.wheeltimer.actuate.WheelTimersDescriptor",
				"io.github.wheeltimer.actuate.DurableCallsDescriptor$FailedCallDescriptor");
		List<String> remindersMethods = JsonPath.read(METADATA.toFile(),
				"$.reflection[?(@.type == 'io.github.wheeltimer.aot.Reminders')].methods[*].name");
		assertThat(remindersMethods).contains("cancelIfUnpaid", "ping", "retry");
		List<Map<String, Object>> resources = JsonPath.read(METADATA.toFile(), "$.resources[*]");
		assertThat(resources).anySatisfy((resource) -> assertThat(resource.toString())
			.contains("io/github/wheeltimer/durable/schema/*/*.sql"));
	}

	private static List<String> types() throws IOException {
		assertThat(METADATA).as("written by process-aot").exists();
		return JsonPath.read(METADATA.toFile(), "$.reflection[*].type");
	}

}
