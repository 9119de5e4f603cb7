package io.github.wheeltimer.sample.orders;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * The orders, in the {@code shop_order} table of the application's database, so that they survive
 * a restart as their durable cancellations do. Every change reads the row {@code FOR UPDATE} and
 * writes it in one transaction, so a payment and the delayed cancellation racing for the same
 * order are settled one after the other: the second sees what the first did.
 */
@Component
public class OrderBook {

	private static final String COLUMNS = "id, item, status, created_at, payment_due, paid_at, cancelled_at, shipment,"
			+ " shipment_attempts, shipment_problem";

	private final JdbcClient jdbc;

	OrderBook(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	@Transactional
	Order add(Function<String, Order> orderWithId) {
		Long number = this.jdbc.sql("SELECT nextval('shop_order_number')").query(Long.class).single();
		Order order = orderWithId.apply(Long.toString(number));
		this.jdbc.sql("INSERT INTO shop_order (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			.params(Long.parseLong(order.id()), order.item(), order.status().name(), timestamp(order.createdAt()),
					timestamp(order.paymentDue()), timestamp(order.paidAt()), timestamp(order.cancelledAt()),
					order.shipment().name(), order.shipmentAttempts(), order.shipmentProblem())
			.update();
		return order;
	}

	/**
	 * Returns the order with the given id, if there is one.
	 * @param id the order's id
	 * @return the order
	 */
	public Optional<Order> find(String id) {
		return this.jdbc.sql("SELECT " + COLUMNS + " FROM shop_order WHERE id = ?")
			.param(number(id))
			.query(OrderBook::order)
			.optional();
	}

	/**
	 * Returns the most recent orders, newest first.
	 * @param limit how many at most
	 * @return the orders
	 */
	public List<Order> newest(int limit) {
		return this.jdbc.sql("SELECT " + COLUMNS + " FROM shop_order ORDER BY id DESC LIMIT ?")
			.param(limit)
			.query(OrderBook::order)
			.list();
	}

	/**
	 * Changes an order atomically: in the caller's transaction if it has one, else in its own.
	 * @return the order before and after the change
	 * @throws OrderNotFoundException if there is no such order
	 */
	@Transactional
	Change update(String id, UnaryOperator<Order> change) {
		Order before = this.jdbc.sql("SELECT " + COLUMNS + " FROM shop_order WHERE id = ? FOR UPDATE")
			.param(number(id))
			.query(OrderBook::order)
			.optional()
			.orElseThrow(() -> new OrderNotFoundException(id));
		Order after = change.apply(before);
		if (!after.equals(before)) {
			this.jdbc.sql("UPDATE shop_order SET status = ?, paid_at = ?, cancelled_at = ?, shipment = ?,"
					+ " shipment_attempts = ?, shipment_problem = ? WHERE id = ?")
				.params(after.status().name(), timestamp(after.paidAt()), timestamp(after.cancelledAt()),
						after.shipment().name(), after.shipmentAttempts(), after.shipmentProblem(), number(id))
				.update();
		}
		return new Change(before, after);
	}

	private static long number(String id) {
		try {
			return Long.parseLong(id);
		}
		catch (NumberFormatException ex) {
			throw new OrderNotFoundException(id);
		}
	}

	private static Order order(ResultSet rs, int row) throws SQLException {
		return new Order(Long.toString(rs.getLong("id")), rs.getString("item"), OrderStatus.valueOf(rs.getString("status")),
				instant(rs, "created_at"), instant(rs, "payment_due"), instant(rs, "paid_at"),
				instant(rs, "cancelled_at"), ShipmentStatus.valueOf(rs.getString("shipment")),
				rs.getInt("shipment_attempts"), rs.getString("shipment_problem"));
	}

	private static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	private static @Nullable OffsetDateTime timestamp(@Nullable Instant instant) {
		return (instant != null) ? instant.atOffset(ZoneOffset.UTC) : null;
	}

	record Change(Order before, Order after) {

		boolean changed() {
			return !this.before.equals(this.after);
		}

	}

}
