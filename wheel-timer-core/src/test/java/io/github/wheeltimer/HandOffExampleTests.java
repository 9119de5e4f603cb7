package io.github.wheeltimer;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code docs/core.md}, "The API": its marked region is the page's hand-off example, and it runs on
 * a manual ticker: the timeout counts as completed once the mail is sent, on the mailer's thread.
 */
class HandOffExampleTests {

	private final ManualTicker ticker = new ManualTicker();

	private final HashedWheelTimer timer = HashedWheelTimer.builder().ticker(this.ticker).build();

	private final ExecutorService mailer = Executors.newSingleThreadExecutor();

	private final List<String> sent = new CopyOnWriteArrayList<>();

	@AfterEach
	void stop() {
		this.timer.stop();
		this.mailer.shutdownNow();
	}

	@Test
	void aTimeoutThatHandsItsMailOffCountsAsCompletedOnceTheMailIsSent() {
		String mail = "reminder";
		// example: start
		timer.newTimeout(t -> {
			HandOff handOff = HashedWheelTimer.handOff(t);   // running from now on, not completed
			mailer.submit(() -> {
				try { send(mail); handOff.completed(); }
				catch (RuntimeException ex) { handOff.failed(); throw ex; }
			});
		}, Duration.ofMinutes(5));
		// example: end
		this.ticker.advance(Duration.ofMinutes(5));
		this.ticker.awaitIdle();
		await().untilAsserted(() -> assertThat(this.timer.counters().completed()).isOne());
		assertThat(this.sent).containsExactly("reminder");
		assertThat(this.timer.counters().running()).isZero();
	}

	private void send(String mail) {
		this.sent.add(mail);
	}

}
