package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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
	 * @return a future that completes with the number of attempts it took, or exceptionally with a
	 * {@link ShipmentFailedException} once every attempt was refused (or with the timer's
	 * refusal, if it was stopped meanwhile)
	 */
	public CompletableFuture<Integer> ship(String orderId) {
		try {
			this.warehouse.ship(orderId);
			return CompletableFuture.completedFuture(1);
		}
		catch (WarehouseUnavailableException ex) {
			return retry(orderId, 2, ex);
		}
	}

	private CompletableFuture<Integer> retry(String orderId, int attempt, WarehouseUnavailableException lastFailure) {
		if (attempt > this.maxAttempts) {
			return CompletableFuture.failedFuture(new ShipmentFailedException(orderId, attempt - 1, lastFailure));
		}
		CompletableFuture<Void> sent;
		try {
			sent = this.retries.shipAgain(orderId);
		}
		catch (TaskRejectedException ex) {
			// The timer was stopped: the order is paid, but no retry can be armed any more.
			return CompletableFuture.failedFuture(ex);
		}
		return sent.thenApply((done) -> attempt).exceptionallyCompose((failure) -> {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			if (cause instanceof WarehouseUnavailableException refused) {
				return retry(orderId, attempt + 1, refused);
			}
			return CompletableFuture.failedFuture(cause);
		});
	}

}
