package io.github.wheeltimer;

/**
 * How a task that handed its work on tells its timer how the work ended. A {@link TimerTask}
 * whose {@link TimerTask#run(Timeout) run} only passes the work to somewhere else (an executor of
 * its own, a queue, a batch) calls {@link HashedWheelTimer#handOff(Timeout)} from there: the timer
 * then counts the timeout {@code running} until the work calls one of these, and counts it
 * {@code completed}, {@code failed} or {@code withdrawn} as the work says, instead of
 * {@code completed} as soon as {@code run} returns. So the counters say how the work ended, not
 * only that it was passed on.
 * <p>
 * The first call counts; later ones are ignored. Any thread may call them. Work that never says
 * how it ended stays counted {@code running}.
 */
public interface HandOff {

	/**
	 * Counts nothing: what a task holds before it hands its work on, and what
	 * {@link HashedWheelTimer#handOff(Timeout)} returns for a timeout of another {@link Timer}.
	 */
	HandOff NONE = new HandOff() {

		@Override
		public void completed() {
		}

		@Override
		public void failed() {
		}

		@Override
		public void withdrawn() {
		}

		@Override
		public String toString() {
			return "HandOff.NONE";
		}

	};

	/** The work ran and returned normally: the timeout counts as {@code completed}. */
	void completed();

	/**
	 * The work threw, or could not start (the executor it was handed to refused it): the timeout
	 * counts as {@code failed}.
	 */
	void failed();

	/**
	 * The work was given up before it ran, or will run somewhere else (its caller cancelled it
	 * while it waited for its executor, or it went back where it came from): the timeout counts as
	 * {@code withdrawn}.
	 */
	void withdrawn();

}
