package io.github.wheeltimer.sample.shipping;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.event.EventListener;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.resilience.retry.MethodRetryEvent;
import org.springframework.stereotype.Service;

/**
 * Sends paid orders to the warehouse, and again later while it refuses them.
 * <p>
 * The first attempt is made at once, so that the payment's answer can say whether the warehouse
 * took the order. The retries are {@link WarehouseRetries#sendAgain(Shipment)}: one delayed call,
 * which the timer runs again after each refusal, as its {@code @Retryable} says. No thread waits
 * between two attempts.
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
		this.maxAttempts = properties.maxRetries() + 1;
	}

	/**
	 * Sends an order to the warehouse now, and again later while it refuses it, up to
	 * {@code sample.shipping.max-retries} more times.
	 * @param orderId the order's id
	 * @param refused told the number of attempts refused so far, after each refusal
	 * @return a future that completes with the number of attempts it took, or exceptionally with a
	 * {@link ShipmentFailedException}: every attempt was refused, or the timer was stopped before
	 * the next one
	 */
	public CompletableFuture<Integer> ship(String orderId, IntConsumer refused) {
		Shipment shipment = new Shipment(orderId, refused);
		int first = shipment.startAttempt();
		try {
			this.warehouse.ship(orderId);
			return CompletableFuture.completedFuture(first);
		}
		catch (WarehouseUnavailableException ex) {
			refused(shipment);
			if (first == this.maxAttempts) {
				return CompletableFuture.failedFuture(ShipmentFailedException.refusedEveryTime(orderId, first, ex));
			}
		}
		CompletableFuture<Integer> sent;
		try {
			sent = this.retries.sendAgain(shipment);
		}
		catch (TaskRejectedException ex) {
			return CompletableFuture.failedFuture(ShipmentFailedException.notRetried(orderId, first, ex));
		}
		// Completes once: with the attempt the warehouse took, or with the retries' last failure.
		return sent.exceptionally((failure) -> {
			throw shipmentFailed(shipment, failure);
		});
	}

	/**
	 * The warehouse refused a retry: told by the event that Spring's {@code @Retryable} publishes
	 * for each failed attempt, here by the timer that runs {@link WarehouseRetries}. It comes for
	 * the last attempt too, before the one that says the retries have ended.
	 * @param event a failed attempt of any {@code @Retryable} method of the application
	 */
	@EventListener
	void retryFailed(MethodRetryEvent event) {
		Object[] arguments = event.getSource().getArguments();
		if (!event.isRetryAborted() && event.getFailure() instanceof WarehouseUnavailableException
				&& arguments.length == 1 && arguments[0] instanceof Shipment shipment) {
			refused(shipment);
		}
	}

	private void refused(Shipment shipment) {
		shipment.refused();
		int attempts = shipment.attempts();
		if (attempts < this.maxAttempts) {
			logger.info("The warehouse refused order " + shipment.orderId() + " (attempt " + attempts
					+ "); sending it again later");
		}
	}

	private ShipmentFailedException shipmentFailed(Shipment shipment, Throwable failure) {
		Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
		String orderId = shipment.orderId();
		int attempts = shipment.attempts();
		if (cause instanceof WarehouseUnavailableException) {
			// Fewer attempts than allowed: the timer did not take the next one (it was stopping).
			return (attempts == this.maxAttempts) ? ShipmentFailedException.refusedEveryTime(orderId, attempts, cause)
					: ShipmentFailedException.notRetried(orderId, attempts, cause);
		}
		if (cause instanceof CancellationException) {
			// The retry was still waiting when the timer stopped, which cancelled its future.
			return ShipmentFailedException.notRetried(orderId, attempts, cause);
		}
		return new ShipmentFailedException("Sending order " + orderId + " failed: " + cause, attempts, cause);
	}

}
