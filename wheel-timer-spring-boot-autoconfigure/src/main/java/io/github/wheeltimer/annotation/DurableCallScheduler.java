package io.github.wheeltimer.annotation;

/**
 * The scheduler of {@code @DelayedExecution(durable = true)} methods: implemented by the durable
 * calls, a bean when they are on. Its own package depends on this one, never the reverse.
 */
public interface DurableCallScheduler extends DelayedCallScheduler {

	/**
	 * Resolves the durable side of a method at startup: its id, key, and how its arguments are
	 * stored.
	 * @param method the method, resolved
	 * @param annotation its annotation
	 * @param beanName the one singleton whose calls are read back and run
	 * @throws IllegalArgumentException saying what is wrong with the method
	 */
	void register(DelayedMethod method, DelayedExecution annotation, String beanName);

	@Override
	default boolean durable() {
		return true;
	}

}
