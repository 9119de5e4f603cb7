package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.annotation.DelayedMethodRegistry;
import io.github.wheeltimer.annotation.InvalidDelayedExecutionException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns an {@link InvalidDelayedExecutionException} into Spring Boot's startup failure report.
 *
 * @see DelayedMethodRegistry
 */
final class InvalidDelayedExecutionFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDelayedExecutionException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidDelayedExecutionException cause) {
		return new FailureAnalysis(cause.getMessage(), "Change the @DelayedExecution annotation on "
				+ cause.getMethod().getDeclaringClass().getName() + "." + cause.getMethod().getName()
				+ ", or the property it refers to, so that its delay, timer and return type are valid.", cause);
	}

}
