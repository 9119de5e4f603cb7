/**
 * Virtual time for Spring Boot tests of delayed methods:
 * {@link io.github.wheeltimer.test.VirtualWheelTime @VirtualWheelTime} puts the wheel timers of a
 * test's context on one {@link io.github.wheeltimer.test.VirtualWheelClock}, which the test moves.
 */
@NullMarked
package io.github.wheeltimer.test;

import org.jspecify.annotations.NullMarked;
