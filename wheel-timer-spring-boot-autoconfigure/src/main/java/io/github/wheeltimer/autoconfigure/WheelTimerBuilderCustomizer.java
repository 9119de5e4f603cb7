package io.github.wheeltimer.autoconfigure;

import io.github.wheeltimer.HashedWheelTimer;

/**
 * Adjusts every {@link HashedWheelTimer} the starter builds (the default {@code wheelTimer}, each
 * timer of {@code wheel-timer.timers}, and those built from the auto-configured
 * {@link HashedWheelTimer.Builder} bean) after the {@code wheel-timer.*} properties are applied
 * and before {@link HashedWheelTimer.Builder#build()}, so that you can set what properties cannot
 * express, such as a task executor or a ticker, without replacing the timer bean:
 *
 * <pre class="code">
 * &#64;Bean
 * WheelTimerBuilderCustomizer timerTasksOnTheirOwnPool(Executor timerTasks) {
 *     return (builder) -&gt; builder.taskExecutor(timerTasks);
 * }
 * </pre>
 *
 * Customizers are applied in their {@link org.springframework.core.annotation.Order order}; what
 * a customizer sets wins over the properties.
 */
@FunctionalInterface
public interface WheelTimerBuilderCustomizer {

	/**
	 * Customizes a builder.
	 * @param builder the builder, with the properties applied
	 */
	void customize(HashedWheelTimer.Builder builder);

}
