/**
 * Sharing the calls with the other instances on the database: the poll that claims, takes over
 * dead instances' calls and cleans up ({@code ClaimPoller}), this instance's heartbeat
 * ({@code Lease}), the threads that drive both, the versions' argument shapes, and the view of the
 * instances operators read.
 * <p>
 * Internal: public only for the packages above it (engine, actuate), not an API; it may change in any release.
 */
@NullMarked
package io.github.wheeltimer.durable.cooperation;

import org.jspecify.annotations.NullMarked;
