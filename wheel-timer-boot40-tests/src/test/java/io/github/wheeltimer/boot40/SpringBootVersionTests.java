package io.github.wheeltimer.boot40;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The other tests of this module prove something only on Spring Boot 4.0: if the build ever put
 * Boot 4.1 on the class path, they would pass without saying so. Every Spring Boot jar is read from
 * its manifest, so that a single module managed at another version fails here too.
 */
class SpringBootVersionTests {

	@Test
	void theTestsRunOnSpringBoot40() {
		assertThat(SpringBootVersion.getVersion()).startsWith("4.0.");
	}

	@Test
	void everySpringBootJarIsOfThatVersion() throws IOException {
		Map<String, String> versions = springBootJarVersions();
		assertThat(versions).containsKeys("spring.boot", "spring.boot.autoconfigure", "spring.boot.actuator",
				"spring.boot.jdbc", "spring.boot.test");
		assertThat(versions).allSatisfy((module, version) -> assertThat(version).as(module)
			.isEqualTo(SpringBootVersion.getVersion()));
	}

	/** The Implementation-Version of each jar whose automatic module name is Spring Boot's. */
	private static Map<String, String> springBootJarVersions() throws IOException {
		Map<String, String> versions = new TreeMap<>();
		for (URL url : Collections.list(SpringBootVersionTests.class.getClassLoader()
			.getResources("META-INF/MANIFEST.MF"))) {
			try (InputStream in = url.openStream()) {
				Attributes attributes = new Manifest(in).getMainAttributes();
				String module = attributes.getValue("Automatic-Module-Name");
				if (module != null && (module.equals("spring.boot") || module.startsWith("spring.boot."))) {
					versions.put(module, attributes.getValue("Implementation-Version"));
				}
			}
		}
		return versions;
	}

}
