// Small helpers that keep the page still while it refreshes: rows are kept by key and their
// cells rewritten only when their text changes, so nothing jumps and focus stays where it was.

export const $ = (id) => document.getElementById(id);

export function setText(element, text) {
	const value = String(text);
	if (element && element.textContent !== value) {
		element.textContent = value;
	}
}

export function el(name, attributes = {}, ...children) {
	const element = document.createElement(name);
	Object.entries(attributes).forEach(([key, value]) => {
		if (key === 'class') {
			element.className = value;
		}
		else if (key === 'text') {
			element.textContent = value;
		}
		else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'title' || key === 'type'
				|| key === 'colspan' || key === 'id' || key === 'role') {
			element.setAttribute(key, value);
		}
		else {
			element[key] = value;
		}
	});
	element.append(...children.filter((child) => child !== null && child !== undefined));
	return element;
}

/**
 * Makes a table body show these items, one row each, in order: an item's row is kept from one
 * refresh to the next (by its key) and only updated; rows of items gone are removed. `build`
 * makes a new row for an item; `update` brings a row up to date. With no items, one row says so.
 */
export function syncRows(body, items, key, build, update, emptyText, columns) {
	body.rowsByKey = body.rowsByKey || new Map();
	const rows = body.rowsByKey;
	const wanted = new Set(items.map(key));
	for (const [k, row] of rows) {
		if (!wanted.has(k)) {
			row.details?.remove();
			row.remove();
			rows.delete(k);
		}
	}
	let empty = body.querySelector('tr.empty');
	if (items.length === 0) {
		if (!empty) {
			empty = el('tr', { class: 'empty' }, el('td', { colspan: columns }));
			body.append(empty);
		}
		setText(empty.firstChild, emptyText);
		return;
	}
	empty?.remove();
	let previous = null;
	items.forEach((item) => {
		const k = key(item);
		let row = rows.get(k);
		if (!row) {
			row = build(item);
			row.dataset.key = k;
			rows.set(k, row);
		}
		update(row, item);
		const after = previous ? (previous.details || previous) : null;
		const expected = after ? after.nextSibling : body.firstChild;
		if (expected !== row) {
			body.insertBefore(row, expected);
		}
		if (row.details && row.nextSibling !== row.details) {
			row.after(row.details);
		}
		previous = row;
	});
}

/** Sets the text of each cell of a row, in order. */
export function setCells(row, texts) {
	texts.forEach((text, i) => setText(row.cells[i], text ?? '–'));
}

// ---- the status line ---------------------------------------------------------------------------

let statusTimer = null;

/** Says something on the page's one status line (aria-live): what an action did, or why not. */
/**
 * Shows what happened on the status line. `reason` marks a refusal by the application's security
 * ('authentication', 'authorisation', 'csrf'), so that a later read refused for the same reason
 * does not replace the change's own message (see `shows`).
 */
export function say(text, kind = 'info', reason = '') {
	const status = $('status');
	status.dataset.reason = reason;
	status.textContent = text;
	status.title = text;
	status.className = `status-line ${kind}`;
	clearTimeout(statusTimer);
	if (kind !== 'error') {
		statusTimer = setTimeout(() => {
			if (status.textContent === text) {
				status.textContent = '';
				status.title = '';
			}
		}, 15_000);
	}
}

/** Whether the status line shows an error refused for this reason already. */
export function shows(reason) {
	const status = $('status');
	return !!reason && status.classList.contains('error') && status.dataset.reason === reason;
}

// ---- dialogs -----------------------------------------------------------------------------------

/**
 * Asks before a change that cannot be undone, in a <dialog>: resolves true when confirmed.
 * Escape, "Keep it" and the backdrop all keep things as they are.
 */
export function confirmDialog(title, text, action) {
	const dialog = $('confirm');
	setText($('confirm-title'), title);
	setText($('confirm-text'), text);
	setText($('confirm-ok'), action);
	dialog.returnValue = '';
	return new Promise((resolve) => {
		dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
		dialog.showModal();
		$('confirm-keep').focus();
	});
}

/** The local date-time an <input type="datetime-local"> shows for an instant. */
export function localInputValue(date) {
	const pad = (n) => String(n).padStart(2, '0');
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:`
		+ `${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Asks for a new due time; resolves to an ISO-8601 instant, or null when kept as it is. */
export function askDueTime(text, current) {
	const dialog = $('reschedule');
	setText($('reschedule-text'), text);
	const input = $('reschedule-at');
	input.value = localInputValue(current);
	dialog.returnValue = '';
	return new Promise((resolve) => {
		dialog.addEventListener('close', () => {
			// A datetime-local value has no zone: the Date constructor reads it as local time.
			resolve(dialog.returnValue === 'ok' && input.value ? new Date(input.value).toISOString() : null);
		}, { once: true });
		dialog.showModal();
		input.focus();
	});
}

// ---- time --------------------------------------------------------------------------------------

let skew = 0;

/** Takes the application's clock (durable.now) as the one to measure "in 4 s" and "2 min ago" by. */
export function applicationNow(iso) {
	const at = Date.parse(iso);
	if (Number.isFinite(at)) {
		skew = at - Date.now();
	}
}

export function now() {
	return Date.now() + skew;
}

/** An instant as a local time, with the date when it is not today. */
export function formatInstant(iso) {
	if (!iso) {
		return '–';
	}
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) {
		return iso;
	}
	const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
	const today = new Date(now());
	return date.toDateString() === today.toDateString() ? time
		: `${date.toLocaleDateString([], { year: 'numeric', month: '2-digit', day: '2-digit' })} ${time}`;
}
