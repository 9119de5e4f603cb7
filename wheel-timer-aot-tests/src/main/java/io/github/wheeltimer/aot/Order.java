package io.github.wheeltimer.aot;

import java.math.BigDecimal;

/**
 * An order, an argument of a durable call: stored as JSON and read back by value.
 *
 * @param id its id, the durable call's key
 * @param total what it costs
 */
public record Order(String id, BigDecimal total) {
}
