package io.github.wheeltimer.virtualtime;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import io.github.wheeltimer.HashedWheelTimer;
import io.github.wheeltimer.Ticker;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

/**
 * Bad arguments and calls from the wrong thread are refused up front, with a message that names
 * the argument and its value.
 */
class VirtualTickerArgumentTests {

	private final VirtualTicker ticker = new VirtualTicker();

	@Test
	void negativeAmountIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.ticker.advance(Duration.ofSeconds(-1)))
			.withMessage("amount must not be negative, was PT-1S");
		assertThat(this.ticker.elapsed()).isZero();
	}

	@Test
	void nullAmountIsRefused() {
		assertThatNullPointerException().isThrownBy(() -> this.ticker.advance(null))
			.withMessage("amount must not be null");
	}

	@Test
	void amountThatWouldTakeVirtualTimePast292YearsIsRefused() {
		this.ticker.advance(Duration.ofDays(365));
		assertThatIllegalArgumentException().isThrownBy(() -> this.ticker.advance(Duration.ofDays(365 * 300)))
			.withMessageStartingWith("amount must be at most PT")
			.withMessageEndingWith("was PT2628000H");
		assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofDays(365));
	}

	@Test
	void settleTimeoutMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.ticker.setSettleTimeout(Duration.ZERO))
			.withMessage("settleTimeout must be positive, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> this.ticker.setSettleTimeout(Duration.ofMillis(-5)))
			.withMessage("settleTimeout must be positive, was PT-0.005S");
		assertThatNullPointerException().isThrownBy(() -> this.ticker.setSettleTimeout(null))
			.withMessage("settleTimeout must not be null");
	}

	@Test
	void tasksOfATimerOnAnotherTickerCannotBeAwaited() {
		HashedWheelTimer timer = HashedWheelTimer.builder().ticker(Ticker.system()).build();
		assertThatIllegalArgumentException().isThrownBy(() -> this.ticker.awaitTasksOf(timer))
			.withMessageStartingWith("timer must be built with this ticker, was built with Ticker.system()");
	}

	@Test
	void nullWorkIsRefused() {
		assertThatNullPointerException().isThrownBy(() -> this.ticker.awaitAlso(null))
			.withMessage("work must not be null");
		assertThatNullPointerException().isThrownBy(() -> this.ticker.awaitTasksOf(null))
			.withMessage("timer must not be null");
	}

	@Test
	void taskOnTheWorkerCannotAdvanceTheClockItWaitsOn() {
		HashedWheelTimer timer = HashedWheelTimer.builder()
			.tickDuration(Duration.ofMillis(1))
			.ticker(this.ticker)
			.build();
		try {
			AtomicReference<Throwable> refusal = new AtomicReference<>();
			timer.newTimeout((timeout) -> {
				try {
					this.ticker.advance(Duration.ofSeconds(1));
				}
				catch (IllegalStateException ex) {
					refusal.set(ex);
				}
			}, Duration.ZERO);

			this.ticker.advance(Duration.ofMillis(1));

			assertThat(refusal.get()).isInstanceOf(IllegalStateException.class)
				.hasMessageStartingWith("Cannot advance virtual time from thread \"wheel-timer-")
				.hasMessageContaining("it would wait for itself");
			assertThat(this.ticker.elapsed()).isEqualTo(Duration.ofMillis(1));
		}
		finally {
			timer.stop();
		}
	}

}
