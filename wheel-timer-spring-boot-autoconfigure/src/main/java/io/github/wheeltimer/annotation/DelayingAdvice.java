package io.github.wheeltimer.annotation;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Advisor;

/**
 * The advice that delays the calls of {@link DelayedExecution} methods, as a run's path and the
 * startup checks recognize it among a proxy's advisors.
 */
interface DelayingAdvice extends Advice {

	/**
	 * Tells whether an advisor is the one that delays calls, which a run must not pass again.
	 * @param advisor an advisor of a proxy
	 * @return {@code true} for the delaying advisor
	 */
	static boolean isDelaying(Advisor advisor) {
		return advisor.getAdvice() instanceof DelayingAdvice;
	}

}
