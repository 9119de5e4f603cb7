package io.github.wheeltimer.autoconfigure;

import java.util.List;

import io.github.wheeltimer.actuate.DurableCallsDescriptor;
import io.github.wheeltimer.actuate.WheelTimerEndpoint;
import io.github.wheeltimer.actuate.WheelTimersDescriptor;
import io.github.wheeltimer.actuate.WheelTimerEndpointWebExtension;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import io.github.wheeltimer.durable.jdbc.DurableSchema;
import io.github.wheeltimer.durable.jdbc.H2Dialect;
import io.github.wheeltimer.durable.jdbc.MySqlDialect;
import io.github.wheeltimer.durable.jdbc.PostgresDialect;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a native image keeps for the starter's own resources and answers: the schema scripts the
 * initializer reads, the proxy through which a run reaches its method, and every descriptor Jackson
 * writes for the endpoint, down to the types they hold.
 */
class WheelTimerRuntimeHintsTests {

	@Test
	void theSchemaScriptsAreKeptAsResources() {
		RuntimeHints hints = new RuntimeHints();
		new DurableCallsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (DurableDialect dialect : List.of(new PostgresDialect(), new MySqlDialect(), new H2Dialect())) {
			for (String script : DurableSchema.scripts(dialect, 1)) {
				assertThat(RuntimeHintsPredicates.resource().forResource(script)).as(script).accepts(hints);
			}
		}
	}

	@Test
	void theProxyThroughWhichARunReachesItsMethodIsKeptWithTheInterfacesSpringGivesIt() throws ClassNotFoundException {
		RuntimeHints hints = new RuntimeHints();
		new DurableCallsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		Class<?> path = Class.forName("io.github.wheeltimer.annotation.RunPath$Path");
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(AopProxyUtils.completeJdkProxyInterfaces(path)))
			.accepts(hints);
	}

	@Test
	void everyDescriptorOfTheEndpointCanBeWrittenByJackson() throws NoSuchMethodException {
		RuntimeHints hints = new RuntimeHints();
		new WheelTimerEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (Class<?> type : new Class<?>[] { WheelTimersDescriptor.class,
				WheelTimersDescriptor.WheelTimerDescriptor.class, WheelTimersDescriptor.CountersDescriptor.class,
				WheelTimersDescriptor.WheelTimerDetailsDescriptor.class, WheelTimersDescriptor.LevelDescriptor.class,
				WheelTimersDescriptor.SlotDescriptor.class, WheelTimersDescriptor.NextTimeoutDescriptor.class,
				WheelTimersDescriptor.DelayedMethodDescriptor.class, WheelTimersDescriptor.StopReportDescriptor.class,
				DurableCallsDescriptor.RequeueDescriptor.class, DurableCallsDescriptor.FailedCallsDescriptor.class,
				DurableCallsDescriptor.class, DurableCallsDescriptor.InstanceDescriptor.class,
				DurableCallsDescriptor.FailedCallDescriptor.class, DurableCallsDescriptor.CountsDescriptor.class,
				WheelTimerEndpointWebExtension.ErrorDescriptor.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(DurableCallsDescriptor.FailedCallDescriptor.class.getMethod("key"))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(WheelTimersDescriptor.StopReportDescriptor.class.getMethod("unprocessedByMethod")))
			.accepts(hints);
	}

}
