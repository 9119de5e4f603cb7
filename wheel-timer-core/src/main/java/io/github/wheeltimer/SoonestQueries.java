package io.github.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Questions for the worker about which pending timeouts fall due first: only the worker may walk
 * the wheel's links, so askers push a question on a Treiber stack (the push's CAS publishes its
 * fields) and the worker answers every waiting question with one walk. Not asking costs the worker
 * one volatile read per pass.
 */
final class SoonestQueries {

	private static final VarHandle HEAD;

	static {
		try {
			HEAD = MethodHandles.lookup().findVarHandle(SoonestQueries.class, "head", Query.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private volatile Query head;

	boolean isEmpty() {
		return this.head == null;
	}

	/** Any thread: pushes a question; its answer completes on the worker thread. */
	CompletableFuture<List<Timeout>> ask(int limit) {
		Query query = new Query(limit);
		Query head;
		do {
			head = this.head;
			query.next = head;
		}
		while (!HEAD.compareAndSet(this, head, query));
		return query.answer;
	}

	/** Worker: one walk answers every waiting question, each with the head of the longest answer. */
	void answer(Wheel wheel) {
		Query queries = (Query) HEAD.getAndSet(this, null);
		int longest = 0;
		for (Query query = queries; query != null; query = query.next) {
			longest = Math.max(longest, query.limit);
		}
		List<Timeout> soonest;
		try {
			soonest = wheel.soonest(longest);
		}
		catch (RuntimeException | Error ex) {
			// Out of memory for a huge limit, say: the askers hear of it, the worker goes on.
			for (Query query = queries; query != null; query = query.next) {
				query.answer.completeExceptionally(ex);
			}
			return;
		}
		for (Query query = queries; query != null; query = query.next) {
			query.answer.complete((soonest.size() <= query.limit) ? soonest : soonest.subList(0, query.limit));
		}
	}

	/** Any thread, once no worker will walk the wheel again: every waiting question gets an empty answer. */
	void answerEmpty() {
		for (Query query = (Query) HEAD.getAndSet(this, null); query != null; query = query.next) {
			query.answer.complete(List.of());
		}
	}

	private static final class Query {

		final int limit;

		final CompletableFuture<List<Timeout>> answer = new CompletableFuture<>();

		/** The next query down the stack; written before the push publishes this one. */
		Query next;

		Query(int limit) {
			this.limit = limit;
		}

	}

}
