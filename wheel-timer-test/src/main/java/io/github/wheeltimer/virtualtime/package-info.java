/**
 * Virtual time for tests of code that uses a {@link io.github.wheeltimer.HashedWheelTimer}:
 * {@link io.github.wheeltimer.virtualtime.VirtualTicker} is a clock that moves only when the test
 * advances it, and returns from each advance once everything that fell due has run, so a test
 * covers hours of timeouts in milliseconds, with neither sleeps nor polling.
 *
 * <p>This package belongs in test scope: nothing in it is meant for production code.
 */
package io.github.wheeltimer.virtualtime;
