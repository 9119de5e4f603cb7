package io.github.wheeltimer.test;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Fails the context's startup when a {@link HashedWheelTimer} bean does not read the virtual
 * clock: such a timer would run its calls in real time, behind the test's back.
 */
final class VirtualTimersCheck implements BeanPostProcessor {

	private final ObjectProvider<VirtualWheelClock> clock;

	VirtualTimersCheck(ObjectProvider<VirtualWheelClock> clock) {
		this.clock = clock;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof HashedWheelTimer timer) {
			Ticker ticker = timer.ticker();
			if (ticker != this.clock.getObject().ticker()) {
				throw new BeanCreationException(beanName, "@VirtualWheelTime cannot drive timer '" + beanName
						+ "': it was built with " + ((ticker == Ticker.system()) ? "the system clock" : ticker)
						+ ", so its calls would run in real time. Build it from the auto-configured"
						+ " HashedWheelTimer.Builder bean (inject HashedWheelTimer.Builder into its @Bean method),"
						+ " or give its builder VirtualWheelClock.ticker()");
			}
		}
		return bean;
	}

}
