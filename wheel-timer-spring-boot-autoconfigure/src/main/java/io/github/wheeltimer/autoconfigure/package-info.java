/**
 * Spring Boot auto-configuration of the wheel timers ({@code wheel-timer.*}), of
 * {@code @DelayedExecution} methods, and of the Actuator endpoint, health contributor and meters.
 */
@NullMarked
package io.github.wheeltimer.autoconfigure;

import org.jspecify.annotations.NullMarked;
