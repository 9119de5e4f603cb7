package io.github.wheeltimer.durable;

import java.util.List;

/**
 * One page of durable calls, as {@link DurableCalls#list} reads them.
 *
 * @param calls the calls on this page: waiting and running ones by due time, failed ones newest
 * first
 * @param page the page's number, from 0
 * @param size the most calls a page holds
 * @param total how many calls match, on all pages
 */
public record CallPage(List<StoredCall> calls, int page, int size, long total) {

	/**
	 * Says whether pages follow this one.
	 * @return {@code true} if there are more calls
	 */
	public boolean hasNext() {
		return (long) (this.page + 1) * this.size < this.total;
	}

}
