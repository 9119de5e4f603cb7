package io.github.wheeltimer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what {@link HashedWheelTimer} logs through {@link System.Logger}, whose default
 * backend is {@code java.util.logging}, and keeps it off the console while it does.
 */
final class CapturedLog extends Handler implements AutoCloseable {

	private final Logger logger = Logger.getLogger(HashedWheelTimer.class.getName());

	private final List<LogRecord> records = new CopyOnWriteArrayList<>();

	private final boolean parentHandlers;

	CapturedLog() {
		this.parentHandlers = this.logger.getUseParentHandlers();
		this.logger.setUseParentHandlers(false);
		this.logger.addHandler(this);
	}

	List<LogRecord> records(Level level) {
		return this.records.stream().filter((record) -> record.getLevel().equals(level)).toList();
	}

	@Override
	public void publish(LogRecord record) {
		this.records.add(record);
	}

	@Override
	public void flush() {
	}

	@Override
	public void close() {
		this.logger.removeHandler(this);
		this.logger.setUseParentHandlers(this.parentHandlers);
	}

}
