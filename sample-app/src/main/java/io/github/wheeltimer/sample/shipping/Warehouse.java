package io.github.wheeltimer.sample.shipping;

/**
 * The remote warehouse that ships paid orders.
 */
public interface Warehouse {

	/**
	 * Asks the warehouse to ship an order.
	 * @param orderId the order's id
	 * @throws WarehouseUnavailableException if the warehouse cannot take it now; try again later
	 */
	void ship(String orderId);

}
