// The operator console: reads the wheeltimer endpoint while the page is visible (the timer's
// details twice a second; the main answer, whose durable section counts the database's rows,
// every few seconds), and changes things only through it. No framework, no build step, nothing from
// elsewhere: the page works offline, from the application's own origin.

import { ENDPOINT, change, changeAccess, read } from './api.js';
import { $, confirmDialog, el, say, setText, shows, syncRows } from './dom.js';
import { drawOverview, refreshLists, setWritable, showCall, wireDurable } from './durable.js';
import { Wheel, formatMillis, millis } from './wheel.js';

const REFRESH_MS = 500;
const LISTS_REFRESH_MS = 5000;
// The main answer counts the calls' table by state and by method: a console left open on a
// busy database reads it every few seconds, not twice a second.
const OVERVIEW_REFRESH_MS = 2000;
const OVERVIEW_REFRESH_TIMERS_MS = 5000;
const TABS = ['timers', 'durable', 'instances'];
const NEXT_ROWS = 10;      // the endpoint lists at most ten: the table keeps room for them all

const view = {
	tab: 'timers',
	timer: new URLSearchParams(location.search).get('timer') || '',
	timerNames: '',
	access: undefined,      // until the first read: the page starts read-only (see console.html)
	security: undefined,    // the application's security about changes for this user (changeAccess)
	listsReadAt: 0,
	overviewReadAt: -Infinity,   // performance.now() starts at 0 with the page: read at once
	failures: 0,
};

const wheel = new Wheel($('wheel-drawing'), { maxPredictionMs: 2 * REFRESH_MS });

// ---- tabs --------------------------------------------------------------------------------------

function showTab(name) {
	const tab = TABS.includes(name) ? name : 'timers';
	view.tab = tab;
	TABS.forEach((other) => {
		$(`tab-${other}`).setAttribute('aria-selected', String(other === tab));
		$(`tab-${other}`).tabIndex = other === tab ? 0 : -1;
		$(`panel-${other}`).hidden = other !== tab;
	});
	if (tab === 'durable') {
		view.listsReadAt = 0;          // read the lists at the next refresh, not in five seconds
	}
	view.overviewReadAt = -Infinity;

}

TABS.forEach((name, index) => {
	const tab = $(`tab-${name}`);
	tab.addEventListener('click', () => {
		location.hash = name;
	});
	// Arrow keys move between the tabs, as in any tab list.
	tab.addEventListener('keydown', (event) => {
		const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
		if (step) {
			const next = TABS[(index + step + TABS.length) % TABS.length];
			location.hash = next;
			$(`tab-${next}`).focus();
		}
	});
});
window.addEventListener('hashchange', () => {
	showTab(location.hash.slice(1));
	refresh();
});

// ---- access --------------------------------------------------------------------------------------

/** A read-only endpoint refuses every change: the console then offers none, and says why. */
function drawAccess(access) {
	if (access === view.access || view.security === undefined) {
		return;
	}
	view.access = access;
	const readOnlyEndpoint = access === 'READ_ONLY';
	// Spring Security's rules do not let this user change calls: offer no change they would refuse.
	const notAllowed = !readOnlyEndpoint && view.security.allowed === false;
	const readOnly = readOnlyEndpoint || notAllowed;
	document.body.classList.toggle('read-only', readOnly);
	$('read-only-banner').hidden = !readOnlyEndpoint;
	$('not-allowed-banner').hidden = !notAllowed;
	setText($('not-allowed-user'), view.security.user || '');
	setText($('access'), notAllowed ? `read-only for ${view.security.user}`
		: readOnlyEndpoint ? 'read-only' : access === 'UNRESTRICTED' ? 'read and change' : '');
	setWritable(!readOnly);
	document.querySelectorAll('[data-write]').forEach((button) => {
		button.disabled = readOnly;
	});
}

// ---- timers ------------------------------------------------------------------------------------

function drawTimerNames(timers) {
	const names = Object.keys(timers);
	if (!view.timer || !names.includes(view.timer)) {
		view.timer = names.includes('wheelTimer') ? 'wheelTimer' : names[0] || '';
	}
	const list = names.join(',');
	if (list !== view.timerNames) {
		view.timerNames = list;
		$('timer-picker').replaceChildren(...names.map((name) => new Option(name, name, false, name === view.timer)));
	}
}

function drawTimer(timer) {
	wheel.draw(timer);
	drawNextTimeouts(timer);
	drawDelayedMethods(timer.delayedMethods || []);
	$('stop-timer').disabled = timer.state === 'SHUTDOWN' || view.access === 'READ_ONLY';
}

/** Always ten rows, filled from the top: the panel keeps its height as calls come and go. */
function drawNextTimeouts(timer) {
	const body = $('next-timeouts');
	if (body.rows.length === 0) {
		for (let i = 0; i < NEXT_ROWS; i++) {
			body.append(el('tr', {}, el('td'), el('td', { class: 'method' }), el('td', { class: 'key' })));
		}
	}
	const next = timer.nextTimeouts;
	[...body.rows].forEach((row, i) => {
		const timeout = next ? next[i] : undefined;
		if (!timeout) {
			const note = i === 0 ? (next ? 'nothing pending' : 'the worker is busy; asking again…') : '';
			setText(row.cells[0], '');
			setText(row.cells[1], note);
			row.cells[1].className = 'method note';
			row.cells[2].replaceChildren();
			row.dataset.callId = '';
			return;
		}
		const remaining = millis(timeout.remainingDelay);
		// Past its deadline, a timeout still waits for the end of its tick.
		setText(row.cells[0], remaining < 0 ? 'due now' : formatMillis(remaining));
		// A retry says which attempt it runs.
		setText(row.cells[1], (timeout.method || timeout.task) + (timeout.attempt ? ` · attempt ${timeout.attempt}` : ''));
		row.cells[1].className = 'method';
		row.cells[1].title = timeout.method || timeout.task;
		const callId = timeout.callId || '';
		if (row.dataset.callId !== callId || row.cells[2].textContent !== (timeout.key ?? '')) {
			row.dataset.callId = callId;
			row.cells[2].replaceChildren(timeout.key === undefined || timeout.key === null ? ''
				: callId ? el('button', { type: 'button', class: 'link', text: timeout.key,
					title: `Show the durable call ${timeout.key}`, onclick: () => showCall(callId) })
					: timeout.key);
		}
	});
}

function drawDelayedMethods(methods) {
	syncRows($('delayed-methods'), methods, (method) => method.method, () => el('tr', {},
		el('td', { class: 'method' }), el('td'), el('td', { class: 'num' }), el('td', { class: 'num' }),
		el('td', { class: 'num' }), el('td', { class: 'num' }), el('td', { class: 'num' })),
	(row, method) => {
		setText(row.cells[0], method.method);
		row.cells[0].title = method.method;
		setText(row.cells[1], formatMillis(millis(method.delay)));
		setText(row.cells[2], method.calls);
		setText(row.cells[3], method.completed);
		setText(row.cells[4], method.failed);
		row.cells[4].classList.toggle('some', method.failed > 0);
		setText(row.cells[5], method.inFlight);
		// Only a @Retryable method retries: its retries, and the calls whose retries ran out.
		const retries = method.maxRetries === undefined || method.maxRetries === null;
		setText(row.cells[6], retries ? '–' : `${method.retried} · ${method.exhausted} spent`);
		row.cells[6].title = retries ? 'no @Retryable: a failed call is not retried'
			: `@Retryable(maxRetries = ${method.maxRetries}): ${method.retried} failed runs tried again,`
				+ ` ${method.exhausted} calls failed after their retries`;
		row.cells[6].classList.toggle('some', !retries && method.exhausted > 0);
	}, 'no @DelayedExecution method on this timer', 7);
}

$('timer-picker').addEventListener('change', (event) => {
	view.timer = event.target.value;
	const url = new URL(location.href);
	url.searchParams.set('timer', view.timer);
	history.replaceState(null, '', url);
	refresh();
});

$('stop-form').addEventListener('submit', async (event) => {
	event.preventDefault();
	const timer = view.timer;
	const drain = $('stop-drain').value.trim() || '0s';
	if (!await confirmDialog(`Stop the timer ${timer}?`, `It refuses new calls at once, runs what falls due in the next`
		+ ` ${drain}, and leaves the rest: durable calls go back to the database, the others are cancelled. Only a`
		+ ' restart of the application starts it again.', 'Stop the timer')) {
		return;
	}
	say(`Stopping ${timer}…`);
	try {
		const report = await change('POST', [timer], { drainTimeout: drain });
		say(report.alreadyStopped ? `${timer} was already stopped.`
			: `Stopped ${timer} in ${formatMillis(millis(report.took))}: ${report.firedDuringDrain} ran during the drain,`
				+ ` ${report.unprocessed} left (${report.handedBack} handed back to the database).`, 'done');
	}
	catch (error) {
		say(`Could not stop ${timer}: ${error.message}`, 'error');
	}
});

// ---- the loop ----------------------------------------------------------------------------------

function connection(text, kind) {
	const badge = $('connection');
	setText(badge, text);
	badge.className = `badge ${kind}`;
}

let scheduled = null;
let reading = false;
let readAgain = false;

async function refresh() {
	if (reading) {
		// One read at a time: a change of timer during a read asks for another right after it.
		readAgain = true;
		return;
	}
	clearTimeout(scheduled);
	if (document.visibilityState !== 'visible') {
		// A hidden page reads nothing; it reads again as soon as it is shown.
		connection('paused', 'paused');
		return;
	}
	reading = true;
	try {
		const overviewAge = performance.now() - view.overviewReadAt;
		if (overviewAge >= (view.tab === 'timers' ? OVERVIEW_REFRESH_TIMERS_MS : OVERVIEW_REFRESH_MS)) {
			const overview = await read();
			view.overviewReadAt = performance.now();
			drawAccess(overview.access || null);
			drawTimerNames(overview.timers || {});
			drawOverview(overview.durable || null);
		}
		if (view.tab === 'timers' && view.timer) {
			drawTimer(await read([view.timer]));
		}
		if (view.tab === 'durable' && performance.now() - view.listsReadAt >= LISTS_REFRESH_MS) {
			view.listsReadAt = performance.now();
			await refreshLists();
		}
		if (view.failures > 0) {
			say(`Reading ${ENDPOINT} again.`, 'done');
		}
		view.failures = 0;
		connection('live', 'live');
	}
	catch (error) {
		view.failures += 1;
		connection(error.reason === 'authentication' ? 'signed out' : error.status ? `HTTP ${error.status}` : 'unreachable',
			'unreachable');
		// A change refused for the same reason keeps its own message, which says what did not happen.
		if (view.failures === 1 && !shows(error.reason)) {
			say(`Cannot read ${ENDPOINT}: ${error.message}`, 'error', error.reason);
		}
	}
	finally {
		reading = false;
		// Slower while the application does not answer, so that a console left open adds no load.
		const delay = readAgain ? 0 : view.failures > 0 ? Math.min(10_000, REFRESH_MS * 2 ** view.failures) : REFRESH_MS;
		readAgain = false;
		scheduled = setTimeout(refresh, delay);
	}
}

document.addEventListener('visibilitychange', () => {
	if (document.visibilityState === 'visible') {
		refresh();
	}
});

wireDurable();
showTab(location.hash.slice(1));
// Asked once, before the first drawing of the access: the page offers only the changes it may make.
changeAccess().then((answer) => {
	view.security = answer;
}, () => {
	view.security = {};
}).finally(() => {
	view.overviewReadAt = -Infinity;
	refresh();
});
