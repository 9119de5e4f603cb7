package io.github.wheeltimer.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A durable call keeps its caller's trace: the caller's span is stored with the row as a W3C
 * {@code traceparent}, and the call's span links to it when it runs, on another instance. Two
 * applications on one H2 database, each with Micrometer Tracing's test tracer wired by Spring
 * Boot's own auto-configuration.
 */
class DurableCallTracingTests {

	private final List<ConfigurableApplicationContext> started = new java.util.ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.started.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aDurableCallStoresItsCallersTraceAndItsSpanLinksToItOnTheInstanceThatRunsIt() throws Exception {
		String url = "jdbc:h2:mem:traced-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
		ConfigurableApplicationContext caller = start(url);
		Span request;
		ObservationRegistry callerRegistry = caller.getBean(ObservationRegistry.class);
		Observation observation = Observation.start("test.request", callerRegistry);
		try (Observation.Scope scope = observation.openScope()) {
			request = caller.getBean(Tracer.class).currentSpan();
			caller.getBean(Payments.class).expire("payment-1");
		}
		finally {
			observation.stop();
		}
		// Stopped before the call falls due: the call waits in the database for another instance.
		caller.close();
		JdbcTemplate jdbc = new JdbcTemplate(new org.springframework.jdbc.datasource.DriverManagerDataSource(url, "sa", ""));
		Map<String, Object> row = jdbc.queryForMap("SELECT id, trace_parent FROM WHEEL_TIMER_CALL");
		String traceId = "0".repeat(32 - request.context().traceId().length()) + request.context().traceId();
		String spanId = "0".repeat(16 - request.context().spanId().length()) + request.context().spanId();
		boolean sampled = Boolean.TRUE.equals(request.context().sampled());
		assertThat(row.get("trace_parent")).isEqualTo("00-" + traceId + "-" + spanId + (sampled ? "-01" : "-00"));

		// On real time: the call crosses from an instance that stopped to one that starts after it.
		ConfigurableApplicationContext runner = start(url);
		Payments payments = runner.getBean(Payments.class);
		String ranInTrace = payments.nextRun();
		assertThat(ranInTrace).as("the call ran on the second instance").isNotNull();
		assertThat(ranInTrace).as("a trace of its own, linked to the caller's").isNotEqualTo(request.context().traceId());
		TestObservationRegistry registry = runner.getBean(TestObservationRegistry.class);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(registry)
			.hasObservationWithNameEqualTo("wheel.timer.delayed.call")
			.that()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("durable", "true")
			.hasLowCardinalityKeyValue("outcome", "ran")
			.hasHighCardinalityKeyValue("wheel.timer.call.id", row.get("id").toString()));
		SimpleSpan span = runner.getBean(SimpleTracer.class)
			.getSpans()
			.stream()
			.filter((finished) -> finished.getName().equals("delayed payments.expire"))
			.findFirst()
			.orElseThrow();
		assertThat(span.getTraceId()).isEqualTo(ranInTrace);
		assertThat(span.getLinks()).singleElement().satisfies((Link link) -> {
			assertThat(link.getTraceContext().traceId()).isEqualTo(traceId);
			assertThat(link.getTraceContext().spanId()).isEqualTo(spanId);
			assertThat(link.getTraceContext().sampled()).isEqualTo(sampled);
		});
	}

	private ConfigurableApplicationContext start(String url) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(TracedPayments.class)
			.web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + url, "spring.datasource.username=sa", "wheel-timer.tick-duration=10ms",
					"wheel-timer.durable.horizon=1s", "wheel-timer.durable.poll-interval=200ms",
					"wheel-timer.durable.heartbeat-interval=200ms", "wheel-timer.durable.lease=1s",
					"wheel-timer.durable.jdbc.initialize-schema=always", "spring.main.banner-mode=off")
			.run();
		this.started.add(context);
		return context;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	public static class TracedPayments {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

		@Bean
		Payments payments(Tracer tracer) {
			return new Payments(tracer);
		}

	}

	public static class Payments {

		private final Tracer tracer;

		private final BlockingQueue<String> runs = new LinkedBlockingQueue<>();

		Payments(Tracer tracer) {
			this.tracer = tracer;
		}

		/** @return the trace id the next run ran in, {@code null} if none ran within 20 s */
		public String nextRun() throws InterruptedException {
			return this.runs.poll(20, TimeUnit.SECONDS);
		}

		/**
		 * Due well after the horizon (5 s against 1 s), so that the instance that writes it leaves it
		 * in the database, however slowly a loaded machine closes that instance.
		 */
		@DelayedExecution(delay = 5000, durable = true, id = "payments.expire")
		public void expire(String paymentId) {
			Span span = this.tracer.currentSpan();
			this.runs.add((span != null) ? span.context().traceId() : "no span");
		}

	}

}
