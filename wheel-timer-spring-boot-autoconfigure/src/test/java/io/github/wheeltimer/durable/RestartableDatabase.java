package io.github.wheeltimer.durable;

import java.io.IOException;

/**
 * A database server of one test's own, that it stops and starts again with its data, on the same
 * port: a real outage, without touching the server the other tests share.
 */
interface RestartableDatabase extends AutoCloseable {

	/** Starts the server again, with its data. */
	void start() throws IOException;

	/** Stops the server, cutting its open connections, and keeps its data. */
	void stop() throws IOException;

	/**
	 * Creates a new, empty database on this server.
	 * @param name its name
	 * @return its URL, with the user to connect as
	 */
	String newDatabase(String name);

	/** Stops the server and deletes its data. */
	@Override
	void close() throws IOException;

}
