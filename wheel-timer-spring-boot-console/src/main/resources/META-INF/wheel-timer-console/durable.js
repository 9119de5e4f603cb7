// The durable calls tab: counts by state and by method, a search by method, key and state, the
// failed calls with their error and arguments, and the calls of methods no live instance knows;
// and the instances tab, read from the same overview.

import { change, read } from './api.js';
import { formatMillis } from './wheel.js';
import {
	$, applicationNow, askDueTime, confirmDialog, el, formatInstant, now, say, setCells, setText, shows, syncRows,
} from './dom.js';

const STATES = ['PENDING', 'CLAIMED', 'RUNNING', 'FAILED'];
const PAGE_SIZE = 20;
const HIDDEN_ARGUMENTS = '******';

const search = { method: '', key: '', state: '', page: 0, total: 0 };
const openDetails = new Set();
let writable = true;
let knownMethods = '';
let listsError = null;

/** Whether the buttons that change calls are offered: not on a read-only endpoint. */
export function setWritable(value) {
	writable = value;
}

// ---- the overview (GET {endpoint}, twice a second) ---------------------------------------------

/** Draws what GET {endpoint} says of durable calls: counts, methods, unknown methods, instances. */
export function drawOverview(durable) {
	$('durable-off').hidden = !!durable;
	$('durable-on').hidden = !durable;
	const count = $('tab-failed-count');
	if (!durable) {
		count.hidden = true;
		drawInstances(null);
		return;
	}
	applicationNow(durable.now);
	const calls = durable.calls || {};
	STATES.forEach((state) => setText($(`state-${state}`), calls[state] ?? 0));
	$('state-FAILED').classList.toggle('some', (calls.FAILED || 0) > 0);
	setText($('held-here'), durable.heldHere ?? '–');
	setText($('oldest-overdue'), durable.oldestOverdue
		? `${formatInstant(durable.oldestOverdue)} (${ago(durable.oldestOverdue)})` : 'none');
	count.hidden = !(calls.FAILED > 0);
	$('requeue-all').disabled = !writable || !(calls.FAILED > 0);
	setText(count, calls.FAILED || 0);
	const error = $('database-error');
	error.hidden = !durable.databaseError;
	setText(error, durable.databaseError ? `The database cannot be read: ${durable.databaseError}` : '');

	drawByMethod(durable.byMethod || {}, durable.unknownMethods || {});
	drawUnknownMethods(durable.unknownMethods || {});
	drawUnreadable(durable.unreadable || []);
	drawInstances(durable);
}

function drawByMethod(byMethod, unknown) {
	const methods = [...new Set([...Object.keys(byMethod), ...Object.keys(unknown)])].sort();
	const list = methods.join('\n');
	if (list !== knownMethods) {
		knownMethods = list;
		$('method-ids').replaceChildren(...methods.map((method) => el('option', { value: method })));
	}
	syncRows($('by-method'), methods, (method) => method, (method) => {
		const row = el('tr', {}, el('td', { class: 'method' }), el('td', { class: 'num' }), el('td', { class: 'num' }),
			el('td', { class: 'num' }), el('td', { class: 'num' }), el('td', { class: 'actions' },
				el('button', { type: 'button', class: 'quiet small', text: 'Find', title: `List the calls of ${method}`,
					onclick: () => findCalls(method, '', '') })));
		row.cells[0].append(el('code'), el('span', { class: 'unknown-tag', text: 'no live instance knows it' }));
		return row;
	}, (row, method) => {
		const counts = byMethod[method] || {};
		setText(row.cells[0].firstChild, method);
		row.cells[0].lastChild.hidden = !(method in unknown);
		STATES.forEach((state, i) => setText(row.cells[i + 1], counts[state] ?? 0));
	}, 'no durable calls', 6);
}

function drawUnknownMethods(unknown) {
	const methods = Object.keys(unknown).sort();
	syncRows($('unknown-methods'), methods, (method) => method, (method) => el('tr', {},
		el('td', { class: 'method' }, el('code', { text: method })), el('td', { class: 'num' }),
		el('td', { class: 'actions' }, el('button', {
			type: 'button', class: 'danger small', text: 'Delete…', 'data-write': '', disabled: !writable,
			onclick: () => deleteMethod(method, unknown[method]),
		}))), (row, method) => setText(row.cells[1], unknown[method]), 'none: every method is known', 3);
}

function drawUnreadable(unreadable) {
	syncRows($('unreadable-calls'), unreadable, (calls) => `${calls.methodId} ${calls.shape}`, () => el('tr', {},
		el('td', { class: 'method' }, el('code')), el('td', { class: 'key' }), el('td', { class: 'num' }),
		el('td', { class: 'when' })), (row, calls) => {
		setText(row.cells[0].firstChild, calls.methodId);
		setText(row.cells[1], calls.shape || 'unrecorded (written before the tables recorded shapes)');
		setText(row.cells[2], calls.count);
		setText(row.cells[3], calls.oldestDue ? `${formatInstant(calls.oldestDue)} (${ago(calls.oldestDue)})` : '–');
	}, 'none: every waiting call is read by a live instance', 4);
}

// ---- instances ---------------------------------------------------------------------------------

function drawInstances(durable) {
	const instances = durable ? durable.instances || [] : [];
	syncRows($('instances'), instances, (instance) => instance.id, () => el('tr', {},
		el('td'), el('td'), el('td', { class: 'when' }), el('td', { class: 'num' }), el('td'), el('td', { class: 'key' })),
	(row, instance) => {
		setCells(row, [instance.name, instance.alive ? 'alive' : 'lease ran out',
			instance.heartbeat ? `${formatInstant(instance.heartbeat)} (${ago(instance.heartbeat)})` : '–',
			instance.calls, (instance.methods || []).join(', ') || 'none', instance.id]);
		row.cells[1].className = instance.alive ? 'alive-yes' : 'alive-no';
		row.cells[5].title = instance.id;
	}, durable ? 'no instance has a heartbeat in the database' : 'durable calls are off: no instances to show', 6);
	setText($('instances-note'), durable
		? 'An instance is alive while its heartbeat is within the lease (wheel-timer.durable.lease); a dead one\'s calls'
			+ ' are taken over by the others.' : '');
	const counts = durable ? durable.counts || {} : {};
	const list = $('durable-counts');
	Object.entries(counts).forEach(([name, value]) => {
		let item = list.querySelector(`[data-count="${name}"]`);
		if (!item) {
			item = el('div', { 'data-count': name }, el('dt', { text: name.replace(/([A-Z])/g, ' $1').toLowerCase() }),
				el('dd'));
			list.append(item);
		}
		setText(item.lastChild, value);
	});
}

// ---- the search and the failed calls (every few seconds, and on demand) ------------------------

/** Fills the search form and runs it: from the by-method table, or a key on the timers tab. */
export function findCalls(method, key, state) {
	$('search-method').value = method || '';
	$('search-key').value = key || '';
	$('search-state').value = state || '';
	search.method = method || '';
	search.key = key || '';
	search.state = state || '';
	search.page = 0;
	location.hash = 'durable';
	return refreshLists();
}

/** Opens a call found by its id (a key on the wheel): searches its method and key. */
export async function showCall(id) {
	try {
		const call = await read(['durable', 'calls', id]);
		openDetails.add(call.id);
		await findCalls(call.methodId, call.key || '', '');
	}
	catch (error) {
		say(error.status === 404 ? 'That call is no longer waiting: it ran, or was cancelled.' : error.message, 'error');
	}
}

/** Reads the search's page and the newest failed calls again. */
export async function refreshLists() {
	if ($('durable-on').hidden) {
		return;
	}
	try {
		const [found, failed] = await Promise.all([
			read(['durable', 'calls'], {
				method: search.method, key: search.key, state: search.state, page: search.page, size: PAGE_SIZE,
			}),
			read(['durable', 'calls'], { state: 'FAILED', page: 0, size: PAGE_SIZE }),
		]);
		applicationNow(found.now);
		search.total = found.total;
		clearListsError();
		drawCalls($('search-results'), found.calls || [], 'no call matches', false);
		drawCalls($('failed-calls'), failed.calls || [], 'no failed calls', true);
		const first = found.total === 0 ? 0 : search.page * PAGE_SIZE + 1;
		const last = Math.min(found.total, (search.page + 1) * PAGE_SIZE);
		setText($('search-summary'), `${found.total} call${found.total === 1 ? '' : 's'}`
			+ `${search.method ? ` of ${search.method}` : ''}${search.key ? ` with key ${search.key}` : ''}`
			+ `${search.state ? `, ${search.state.toLowerCase()}` : ''}`
			+ (found.total > PAGE_SIZE ? ` · ${first}–${last} shown` : ''));
		setText($('page-label'), found.total > PAGE_SIZE
			? `page ${search.page + 1} of ${Math.ceil(found.total / PAGE_SIZE)}` : '');
		$('page-previous').disabled = search.page === 0;
		$('page-next').disabled = last >= found.total;
	}
	catch (error) {
		if (!shows(error.reason)) {
			listsError = `Could not list the durable calls: ${error.message}`;
			say(listsError, 'error', error.reason);
		}
	}
}

/** Clears the status line if it still shows the lists' last failure, which a read just mended. */
function clearListsError() {
	if (listsError && $('status').textContent === listsError) {
		say('');
	}
	listsError = null;
}

function drawCalls(body, calls, emptyText, failedList) {
	syncRows(body, calls, (call) => call.id, (call) => buildCallRow(call), (row, call) => updateCallRow(row, call,
		failedList), emptyText, 7);
}

function buildCallRow(call) {
	const row = el('tr', { 'data-call': call.id },
		el('td', { class: 'key' }), el('td', { class: 'method' }), el('td'), el('td', { class: 'when' }),
		el('td', { class: 'num' }), el('td'), el('td', { class: 'actions' }));
	row.cells[2].append(el('span', { class: 'state-tag' }));
	const details = el('button', { type: 'button', class: 'quiet small', text: 'Details', 'aria-expanded': 'false',
		onclick: () => toggleDetails(row) });
	row.cells[6].append(details);
	row.details = null;
	return row;
}

function updateCallRow(row, call, failedList) {
	row.call = call;
	setText(row.cells[0], call.key ?? '(no key)');
	row.cells[0].title = call.key ?? '';
	setText(row.cells[1], call.methodId);
	row.cells[1].title = call.methodId;
	const tag = row.cells[2].firstChild;
	setText(tag, call.state);
	tag.className = `state-tag ${call.state}`;
	setText(row.cells[3], call.state === 'FAILED' ? `${formatInstant(call.failedAt)} (${ago(call.failedAt)})`
		: `${formatInstant(call.due)} (${until(call.due)})`);
	setText(row.cells[4], retryText(call));
	row.cells[4].title = call.retries ? `attempt ${call.attempts} failed: ${call.error || ''}` : '';
	if (failedList) {
		setText(row.cells[5], call.error || '');
		row.cells[5].className = 'error';
		row.cells[5].title = call.error || '';
	}
	else {
		setText(row.cells[5], call.state === 'PENDING' ? 'database' : (call.ownerName || call.owner || '–'));
	}
	setActions(row, call);
	if (row.details) {
		fillDetails(row.details, call);
	}
	else if (openDetails.has(call.id)) {
		toggleDetails(row);
	}
}

/** The buttons a call's state allows: none while it runs. */
function setActions(row, call) {
	const cell = row.cells[6];
	const wanted = writable ? actionsFor(call) : [];
	const names = wanted.map((action) => action.text).join('|');
	if (cell.dataset.actions === names) {
		return;
	}
	cell.dataset.actions = names;
	// Keep the Details button; rebuild the others only when the state changed.
	[...cell.querySelectorAll('[data-write]')].forEach((button) => button.remove());
	wanted.forEach((action) => cell.append(el('button', {
		type: 'button', class: `small ${action.kind}`, text: action.text, title: action.title, 'data-write': '',
		'data-action': action.name, onclick: () => action.run(row.call),
	})));
}

function actionsFor(call) {
	const what = describeCall(call);
	switch (call.state) {
		case 'PENDING':
		case 'CLAIMED':
			return [
				{ name: 'run', text: 'Run now', kind: 'quiet', title: `Run ${what} now`, run: runNow },
				{ name: 'reschedule', text: 'Reschedule…', kind: 'quiet', title: `Move ${what} to another time`, run: reschedule },
				{ name: 'cancel', text: 'Cancel…', kind: 'danger', title: `Cancel ${what}: it will not run`, run: cancel },
			];
		case 'FAILED':
			return [
				{ name: 'requeue', text: 'Re-queue', kind: 'quiet', title: `Run ${what} again now`, run: requeue },
				{ name: 'delete', text: 'Delete…', kind: 'danger', title: `Delete ${what}: it will not run again`, run: remove },
			];
		default:
			return [];
	}
}

function toggleDetails(row) {
	const button = row.cells[6].firstChild;
	if (row.details) {
		row.details.remove();
		row.details = null;
		openDetails.delete(row.call.id);
		button.setAttribute('aria-expanded', 'false');
		return;
	}
	row.details = el('tr', { class: 'details' }, el('td', { colspan: 7 }));
	row.after(row.details);
	openDetails.add(row.call.id);
	button.setAttribute('aria-expanded', 'true');
	fillDetails(row.details, row.call);
}

/**
 * A call's runs: how many started, and for a @Retryable retry which one of how many waits.
 */
function retryText(call) {
	const attempts = call.attempts ?? 0;
	if (!call.retries) {
		return String(attempts);
	}
	return `${attempts} · retry ${call.retries}` + (call.maxRetries !== undefined && call.maxRetries !== null
		? ` of ${call.maxRetries}` : '');
}

function fillDetails(details, call) {
	// A waiting retry: its due time is the next try, its error the last attempt's.
	const retrying = call.retries > 0 && call.state !== 'FAILED';
	const fields = [
		['id', call.id], ['state', call.state],
		[retrying ? 'next try' : 'due', call.due && `${formatInstant(call.due)} · ${call.due}`],
		['created', call.created && `${formatInstant(call.created)} · ${call.created}`],
		['attempts', retryText(call)], ['failed runs', call.failures || undefined],
		['held by', call.ownerName && `${call.ownerName} (${call.owner})`],
		[retrying ? 'last attempt failed' : 'failed', call.failedAt && `${formatInstant(call.failedAt)} · ${call.failedAt}`],
		[retrying ? 'last error' : 'error', call.error],
		['trace', call.traceParent],
	].filter(([, value]) => value !== undefined && value !== null && value !== '');
	const signature = JSON.stringify([fields, call.arguments]);
	if (details.dataset.signature === signature) {
		return;
	}
	details.dataset.signature = signature;
	const list = el('dl');
	fields.forEach(([name, value]) => list.append(el('dt', { text: name }), el('dd', { text: String(value) })));
	list.append(el('dt', { text: 'arguments' }), el('dd', {}, argumentsOf(call)));
	details.firstChild.replaceChildren(list);
}

/** A call's arguments as pretty JSON, or why they are not shown. */
function argumentsOf(call) {
	if (call.arguments === undefined || call.arguments === null) {
		return el('span', { class: 'note', text: 'not given by the endpoint' });
	}
	if (call.arguments === HIDDEN_ARGUMENTS) {
		return el('span', { class: 'note', text: 'hidden (management.endpoint.wheeltimer.show-arguments)' });
	}
	let text = call.arguments;
	try {
		text = JSON.stringify(JSON.parse(call.arguments), null, 2);
	}
	catch (notJson) {
		// Shown as stored.
	}
	return el('pre', { class: 'arguments', text });
}

// ---- the changes -------------------------------------------------------------------------------

function describeCall(call) {
	return `${call.methodId}${call.key ? ` [${call.key}]` : ''}`;
}

async function act(doing, work, done) {
	say(`${doing}…`);
	try {
		const result = await work();
		say(done(result), 'done');
	}
	catch (error) {
		say(`Could not ${doing.charAt(0).toLowerCase()}${doing.slice(1)}: ${error.message}`, 'error', error.reason);
	}
	await refreshLists();
}

function runNow(call) {
	return act(`Run ${describeCall(call)} now`, () => change('POST', ['durable', 'calls', call.id], { action: 'run' }),
		(moved) => `${describeCall(call)} is due now (new id ${moved.id}): the instance that took the change starts it`
			+ ' at once, or, if it does not know the method, the next poll of one that does.');
}

function requeue(call) {
	return act(`Re-queue ${describeCall(call)}`, () => change('POST', ['durable', 'calls', call.id], { action: 'run' }),
		(requeued) => `${describeCall(call)} is pending again, due now (${requeued.state.toLowerCase()}).`);
}

async function reschedule(call) {
	const due = await askDueTime(`${describeCall(call)} is due ${formatInstant(call.due)}. When should it run?`,
		new Date(call.due || now()));
	if (due) {
		await act(`Reschedule ${describeCall(call)}`,
			() => change('POST', ['durable', 'calls', call.id], { action: 'reschedule', due }),
			(moved) => `${describeCall(call)} is now due ${formatInstant(moved.due)} (${until(moved.due)}).`);
	}
}

async function cancel(call) {
	if (await confirmDialog(`Cancel ${describeCall(call)}?`, `It will not run: its row is deleted from the database,`
		+ ` and taken off the wheel that holds it. Due ${formatInstant(call.due)}.`, 'Cancel the call')) {
		await act(`Cancel ${describeCall(call)}`, () => change('DELETE', ['durable', 'calls', call.id]),
			() => `Cancelled ${describeCall(call)}: it will not run.`);
	}
}

async function remove(call) {
	if (await confirmDialog(`Delete the failed call ${describeCall(call)}?`, `It will not run again. Its error was: `
		+ `${call.error || 'not recorded'}`, 'Delete the call')) {
		await act(`Delete ${describeCall(call)}`, () => change('DELETE', ['durable', 'calls', call.id]),
			() => `Deleted the failed call ${describeCall(call)}.`);
	}
}

async function requeueAll() {
	const method = search.method || null;
	const scope = method ? `the failed calls of ${method}` : 'every failed call';
	if (await confirmDialog(`Re-queue ${scope}?`, 'They run again now, on any instance, with a new round of'
		+ ' retries; their attempts so far stay counted. A call whose key a pending call holds now stays failed.',
	'Re-queue them')) {
		await act(`Re-queue ${scope}`, () => change('POST', ['durable', 'failed'], method ? { method } : {}),
			(done) => `Re-queued ${done.requeued} call${done.requeued === 1 ? '' : 's'}`
				+ ((done.keyInUse || []).length ? `; ${done.keyInUse.length} stayed failed: a pending call holds their key`
					: '') + '.');
	}
}

async function deleteMethod(method, calls) {
	if (await confirmDialog(`Delete the calls of ${method}?`, `No live instance knows this method. Its ${calls} waiting`
		+ ` call${calls === 1 ? '' : 's'}, and any failed ones, will be deleted. Do this only if no instance will know`
		+ ' it again.', 'Delete them')) {
		await act(`Delete the calls of ${method}`, () => change('DELETE', ['durable', 'methods', method]),
			(done) => `Deleted ${done.deleted} call${done.deleted === 1 ? '' : 's'} of ${method}.`);
	}
}

// ---- times -------------------------------------------------------------------------------------

function until(iso) {
	const ms = Date.parse(iso) - now();
	if (!Number.isFinite(ms)) {
		return '–';
	}
	return ms >= 0 ? `in ${formatMillis(ms)}` : `overdue ${formatMillis(-ms)}`;
}

function ago(iso) {
	const ms = now() - Date.parse(iso);
	if (!Number.isFinite(ms)) {
		return '–';
	}
	return ms >= 0 ? `${formatMillis(ms)} ago` : `in ${formatMillis(-ms)}`;
}

// ---- wiring ------------------------------------------------------------------------------------

export function wireDurable() {
	$('search-form').addEventListener('submit', (event) => {
		event.preventDefault();
		search.method = $('search-method').value.trim();
		search.key = $('search-key').value.trim();
		search.state = $('search-state').value;
		search.page = 0;
		refreshLists();
	});
	$('page-previous').addEventListener('click', () => {
		search.page = Math.max(0, search.page - 1);
		refreshLists();
	});
	$('page-next').addEventListener('click', () => {
		search.page += 1;
		refreshLists();
	});
	$('requeue-all').addEventListener('click', requeueAll);
}
