package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.task.TaskRejectedException;
import org.springframework.stereotype.Service;

/**
 * Sends paid orders to the warehouse, retrying with a delay when it refuses them.
 * <p>
 * No thread waits between two attempts: each retry is a delayed call on the timing wheel, and the
 * next one is chained on its future.
 */
@Service
public class Shipping {

	private static final Log logger = LogFactory.getLog(Shipping.class);

	private final Warehouse warehouse;

	private final WarehouseRetries retries;

	private final int maxAttempts;

	Shipping(Warehouse warehouse, WarehouseRetries retries, ShippingProperties properties) {
		this.warehouse = warehouse;
		this.retries = retries;
		this.maxAttempts = properties.maxAttempts();
	}

	/**
	 * Sends an order to the warehouse now, and again later while it refuses it, up to
	 * {@code sample.shipping.max-attempts} times in all.
	 * @param orderId the order's id
	 * @param refused told the number of attempts refused so far, after each refusal
	 * @return a future that completes with the number of attempts it took, or exceptionally with a
	 * {@link ShipmentFailedException}: every attempt was refused, or the timer was stopped before
	 * the next one
	 */
	public CompletableFuture<Integer> ship(String orderId, IntConsumer refused) {
		try {
			this.warehouse.ship(orderId);
			return CompletableFuture.completedFuture(1);
		}
		catch (WarehouseUnavailableException ex) {
			return retry(orderId, 1, ex, refused);
		}
	}

	private CompletableFuture<Integer> retry(String orderId, int attemptsRefused, WarehouseUnavailableException refusal,
			IntConsumer refused) {
		refused.accept(attemptsRefused);
		if (attemptsRefused == this.maxAttempts) {
			return CompletableFuture.failedFuture(ShipmentFailedException.refusedEveryTime(orderId, attemptsRefused, refusal));
		}
		CompletableFuture<Void> sent;
		logger.info("The warehouse refused order " + orderId + " (attempt " + attemptsRefused + "); sending it again later");
		try {
			sent = this.retries.shipAgain(orderId);
		}
		catch (TaskRejectedException ex) {
			return CompletableFuture.failedFuture(ShipmentFailedException.notRetried(orderId, attemptsRefused, ex));
		}
		int attempt = attemptsRefused + 1;
		return sent.thenApply((done) -> attempt).exceptionallyCompose((failure) -> {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			if (cause instanceof WarehouseUnavailableException refusedAgain) {
				return retry(orderId, attempt, refusedAgain, refused);
			}
			if (cause instanceof CancellationException) {
				// The retry was still waiting when the timer stopped, which cancelled its future.
				return CompletableFuture.failedFuture(ShipmentFailedException.notRetried(orderId, attemptsRefused, cause));
			}
			return CompletableFuture.failedFuture(
					new ShipmentFailedException("Sending order " + orderId + " failed: " + cause, attempt, cause));
		});
	}

}
