/**
 * The operator console: a page of the application, at {@code wheel-timer.console.path}, that shows
 * and changes the timers and durable calls through the {@code wheeltimer} Actuator endpoint only.
 */
@NullMarked
package io.github.wheeltimer.console;

import org.jspecify.annotations.NullMarked;
