package io.github.wheeltimer.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;

/**
 * Makes the span of a durable call that was written with a {@code traceparent} link to that
 * span: the call runs later, maybe after a restart and on another instance, so its span starts a
 * trace of its own (or joins the one current where it runs) and points back to the request that
 * made it. Spans of other observations, and of in-memory calls (children of their caller's), are
 * left to the application's other tracing handlers. Registered by the auto-configuration ahead of
 * Spring Boot's default tracing handler.
 */
public final class DurableCallTracingObservationHandler
		implements TracingObservationHandler<DelayedCallObservationContext> {

	private final Tracer tracer;

	private final TraceParents traceParents;

	/**
	 * Creates the handler.
	 * @param tracer the application's tracer
	 */
	public DurableCallTracingObservationHandler(Tracer tracer) {
		this.tracer = tracer;
		this.traceParents = new TraceParents(tracer);
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedCallObservationContext call && call.getTraceParent() != null;
	}

	@Override
	public void onStart(DelayedCallObservationContext context) {
		Span parent = getParentSpan(context);
		Span.Builder builder = this.tracer.spanBuilder();
		builder = (parent != null) ? builder.setParent(parent.context()) : builder.setNoParent();
		String traceParent = context.getTraceParent();
		TraceContext caller = (traceParent != null) ? this.traceParents.read(traceParent) : null;
		if (caller != null) {
			builder = builder.addLink(new Link(caller));
		}
		Span span = builder.start();
		getTracingContext(context).setSpan(span);
	}

	@Override
	public void onStop(DelayedCallObservationContext context) {
		Span span = getRequiredSpan(context);
		span.name(getSpanName(context));
		tagSpan(context, span);
		endSpan(context, span);
	}

	@Override
	public Tracer getTracer() {
		return this.tracer;
	}

}
