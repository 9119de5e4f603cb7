package io.github.wheeltimer.actuate;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint over JMX, for operators whose tools speak JMX rather than HTTP.
 */
@SpringBootTest(classes = WebTestApplication.class, webEnvironment = WebEnvironment.NONE,
		properties = { "spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=wheeltimer" })
class WheelTimerEndpointJmxTests {

	@Test
	void theTimersCanBeReadThroughTheEndpointsMBean() throws Exception {
		MBeanServer server = ManagementFactory.getPlatformMBeanServer();
		Set<ObjectName> names = server.queryNames(new ObjectName("org.springframework.boot:type=Endpoint,name=Wheeltimer,*"),
				null);
		assertThat(names).hasSize(1);
		ObjectName endpoint = names.iterator().next();

		Object timers = server.invoke(endpoint, "timers", new Object[0], new String[0]);

		assertThat(asMap(asMap(timers).get("timers"))).containsOnlyKeys("wheelTimer");
		Object details = server.invoke(endpoint, "timer", new Object[] { "wheelTimer" },
				new String[] { String.class.getName() });
		assertThat(asMap(details)).containsEntry("state", "STARTED").containsKeys("buckets", "nextTimeouts",
				"delayedMethods");
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> asMap(Object value) {
		assertThat(value).isInstanceOf(Map.class);
		return (Map<String, Object>) value;
	}

}
