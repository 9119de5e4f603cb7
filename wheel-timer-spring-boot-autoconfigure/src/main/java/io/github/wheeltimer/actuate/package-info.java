/**
 * What Actuator shows of the wheel timers: the {@code wheeltimer} endpoint, the health indicator
 * and the meters, all read from each timer's {@link io.github.wheeltimer.WheelSnapshot}.
 */
@NullMarked
package io.github.wheeltimer.actuate;

import org.jspecify.annotations.NullMarked;
