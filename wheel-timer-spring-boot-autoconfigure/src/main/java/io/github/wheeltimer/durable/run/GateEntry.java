package io.github.wheeltimer.durable.run;

/**
 * Where a held call goes when its timer fires it: its gate. A {@link HeldCall} knows only this,
 * so that its run travels one way, from the wheel to the gate, and never back into what held it.
 */
public interface GateEntry {

	/**
	 * The call fell due: it waits for the batch that gates it. On the timer's worker, or on the
	 * thread that holds a call due already.
	 */
	void enter(HeldCall call);

	/** The timer stopped with the call still on it: its row goes back to the database. */
	void timerStopped(HeldCall call);

}
