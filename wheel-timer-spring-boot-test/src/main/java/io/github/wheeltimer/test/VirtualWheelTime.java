package io.github.wheeltimer.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Puts every {@link io.github.wheeltimer.HashedWheelTimer} bean of a test's application context
 * on one virtual clock, the {@link VirtualWheelClock} bean, which moves only when the test
 * {@link VirtualWheelClock#advance(java.time.Duration) advances} it. A test of a 30-minute delay
 * takes milliseconds, sleeps nowhere, and needs no Awaitility:
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;VirtualWheelTime
 * class PaymentTimeoutTests {
 *
 *     &#64;Autowired OrderService orders;
 *     &#64;Autowired VirtualWheelClock clock;
 *
 *     &#64;Test
 *     void anUnpaidOrderIsCancelledAfterThirtyMinutes() {
 *         Order order = orders.create("teapot");
 *         clock.advance(Duration.ofMinutes(29));
 *         assertThat(orders.find(order.id()).status()).isEqualTo(AWAITING_PAYMENT);
 *         clock.advance(Duration.ofMinutes(1));
 *         assertThat(orders.find(order.id()).status()).isEqualTo(CANCELLED);
 *     }
 * }
 * </pre>
 *
 * The timers are the application's own: the auto-configured {@code wheelTimer}, each timer of
 * {@code wheel-timer.timers}, and timers you build from the auto-configured
 * {@link io.github.wheeltimer.HashedWheelTimer.Builder} bean. The {@code wheel-timer.*} properties
 * still apply; only the source of time changes. A {@code HashedWheelTimer} bean built some other
 * way, on the real clock, fails the context's startup with a message that says how to fix it:
 * one timer on real time would make the test depend on luck.
 * <p>
 * Contexts are cached across test classes as usual, and the clock of a cached context keeps its
 * virtual time: assert on what happens after an advance, not on absolute virtual times. When the
 * context closes, virtual time runs through each timer's shutdown drain, so that closing does not
 * wait for a virtual time that would never come.
 *
 * @see VirtualWheelClock
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(VirtualWheelTimeAutoConfiguration.class)
public @interface VirtualWheelTime {

}
