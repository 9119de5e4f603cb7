// The sample's page: the shop's buttons and orders beside the live wheel. The wheel is drawn by the
// console's wheel.js (wheel-timer-spring-boot-console), served at /wheel-timer/: one copy of the
// drawing for the console and this page. No framework, no build step.

import { Wheel, formatMillis, millis } from './wheel-timer/wheel.js';

// The page draws one timer: wheelTimer, or the one named by ?timer= (the picker sets it).
const TIMER_NAME = new URLSearchParams(location.search).get('timer') || 'wheelTimer';
const TIMERS_URL = 'actuator/wheeltimer';
const TIMER_URL = `${TIMERS_URL}/${encodeURIComponent(TIMER_NAME)}`;
const ORDERS_URL = 'orders?limit=8';
const REFRESH_MS = 500;
const ITEMS = ['a teapot', 'a lamp', 'two mugs', 'a kettle', 'a rug', 'a chair', 'a clock', 'a plant'];

const $ = (id) => document.getElementById(id);

// Never more than two refreshes ahead of the last read: a stalled worker must show a stalled hand.
const wheel = new Wheel($('wheel-drawing'), { maxPredictionMs: 2 * REFRESH_MS });

const view = {
	state: null,
	orders: [],
};

// ---- reading the endpoint ----------------------------------------------------------------------

async function getJson(url) {
	const response = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-store' });
	if (!response.ok) {
		throw new Error(`${url}: HTTP ${response.status}`);
	}
	return response.json();
}

async function send(url, body) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	const json = text ? JSON.parse(text) : null;
	if (!response.ok) {
		throw new Error((json && (json.detail || json.message || json.error)) || `HTTP ${response.status}`);
	}
	return json;
}

// ---- the panels --------------------------------------------------------------------------------

function drawTimer(timer) {
	view.state = timer.state;
	wheel.draw(timer);
	drawNextTimeouts(timer);
	$('stop-timer').disabled = timer.state === 'SHUTDOWN';
}

function drawNextTimeouts(timer) {
	const list = $('next-timeouts');
	const next = timer.nextTimeouts;
	if (!next) {
		list.innerHTML = timer.state === 'STARTED'
			? '<li class="muted">the worker is busy; asking again…</li>' : '';
		return;
	}
	if (next.length === 0) {
		list.innerHTML = '<li class="muted">nothing pending</li>';
		return;
	}
	list.replaceChildren(...next.map((timeout) => {
		const item = document.createElement('li');
		const what = document.createElement('code');
		what.textContent = timeout.method || timeout.task;
		const when = document.createElement('span');
		when.className = 'when';
		// Past its deadline, a timeout still waits for the end of its tick.
		const remaining = millis(timeout.remainingDelay);
		when.textContent = remaining < 0 ? 'due now' : `in ${formatMillis(remaining)}`;
		item.append(what, when);
		return item;
	}));
}

function drawOrders(orders) {
	view.orders = orders;
	const rows = orders.map((order) => {
		const row = document.createElement('tr');
		row.dataset.status = order.status;
		let status = order.status.toLowerCase().replace('_', ' ');
		if (order.status === 'AWAITING_PAYMENT' && view.state === 'SHUTDOWN') {
			status += ' · timer stopped: its cancellation waits in the database for the next start';
		}
		else if (order.status === 'AWAITING_PAYMENT') {
			const left = Date.parse(order.paymentDue) - Date.now();
			status += left > 0 ? ` · ${Math.ceil(left / 1000)} s left` : ' · due now';
		}
		[order.id, order.item, status, shipmentText(order)].forEach((text) => {
			const cell = document.createElement('td');
			cell.textContent = text;
			cell.title = text;
			row.append(cell);
		});
		if (order.shipmentProblem) {
			row.lastChild.title = order.shipmentProblem;
		}
		return row;
	});
	$('orders').replaceChildren(...rows);
	if (rows.length === 0) {
		$('orders').innerHTML = '<tr><td colspan="4" class="muted">no orders yet</td></tr>';
	}
}

function shipmentText(order) {
	const attempts = (count) => `${count} attempt${count === 1 ? '' : 's'}`;
	switch (order.shipment) {
		case 'IN_PROGRESS':
			return order.shipmentAttempts === 0 ? 'sending'
				: `refused ${order.shipmentAttempts}×, retry waiting on the wheel`;
		case 'SHIPPED':
			return `shipped after ${attempts(order.shipmentAttempts)}`;
		case 'FAILED':
			return `failed after ${attempts(order.shipmentAttempts)}`;
		default:
			return '';
	}
}

function say(text, kind = 'info') {
	const message = $('message');
	message.textContent = text;
	message.className = kind;
}

// ---- the loop and the buttons ------------------------------------------------------------------

async function refresh() {
	try {
		const [timer, orders] = await Promise.all([getJson(TIMER_URL), getJson(ORDERS_URL)]);
		drawTimer(timer);
		drawOrders(orders);
	}
	catch (error) {
		$('state').textContent = 'UNREACHABLE';
		$('state').className = 'badge dead';
	}
	finally {
		setTimeout(refresh, REFRESH_MS);
	}
}

async function createOrders() {
	const created = [];
	try {
		for (let i = 0; i < 3; i++) {
			const item = ITEMS[Math.floor(Math.random() * ITEMS.length)];
			created.push(await send('orders', { item }));
		}
		const ids = created.map((order) => order.id).join(', ');
		say(view.state === 'SHUTDOWN'
			? `Created orders ${ids}: each one wrote a durable call to cancelIfUnpaid to the database. The timer is `
				+ 'stopped, so they wait there for the next start.'
			: `Created orders ${ids}: each one wrote a durable call to cancelIfUnpaid to the database and put it `
				+ 'on the wheel.');
	}
	catch (error) {
		say(`Refused: ${error.message}`, 'error');
	}
}

async function payOldest() {
	const unpaid = view.orders.filter((order) => order.status === 'AWAITING_PAYMENT');
	if (unpaid.length === 0) {
		say('No order awaits payment: create some first.', 'error');
		return;
	}
	const oldest = unpaid[unpaid.length - 1];
	try {
		const order = await send(`orders/${oldest.id}/pay`);
		const warehouse = order.shipment === 'SHIPPED' ? 'the warehouse took it'
			: order.shipment === 'FAILED' ? `it could not be shipped: ${order.shipmentProblem}`
				: 'the warehouse refused it, so a retry waits on the wheel';
		say(view.state === 'SHUTDOWN'
			? `Paid order ${oldest.id}: its cancellation, waiting in the database since the timer stopped, was deleted `
				+ `there; ${warehouse}.`
			: `Paid order ${oldest.id}: its cancellation was taken off the wheel (cancelled +1), and ${warehouse}.`);
	}
	catch (error) {
		say(`Could not pay order ${oldest.id}: ${error.message}`, 'error');
	}
}

async function stopTimer() {
	$('stop-timer').disabled = true;
	say('Stopping: the timer refuses new calls and runs what falls due during the drain…');
	try {
		const report = await send(TIMER_URL);
		const methods = Object.entries(report.unprocessedByMethod || {})
			.map(([method, calls]) => `${method} × ${calls}`).join(', ');
		const lost = report.unprocessed - report.handedBack;
		const left = report.handedBack > 0
			? `${report.handedBack} handed back to the database${methods ? ` (${methods})` : ''}, to run at the next `
				+ `start${lost > 0 ? `, and ${lost} never will` : ''}: counted as unprocessed. `
			: `${report.unprocessed} never will${methods ? ` (${methods})` : ''}: counted as unprocessed, their `
				+ 'futures cancelled. ';
		say(report.alreadyStopped ? 'The timer was already stopped.'
			: `Stopped in ${formatMillis(millis(report.took))}: ${report.firedDuringDrain} call(s) ran during the `
				+ `${formatMillis(millis(report.drainTimeout))} drain, ${left}The wheel takes no new calls.`,
			'stopped');
	}
	catch (error) {
		$('stop-timer').disabled = false;
		say(`Could not stop the timer: ${error.message}`, 'error');
	}
}

/** Lists every timer of the application, as the endpoint does, and switches the page to the one picked. */
async function listTimers() {
	const picker = $('timer-picker');
	try {
		const names = Object.keys((await getJson(TIMERS_URL)).timers);
		picker.replaceChildren(...names.map((name) => new Option(name, name, false, name === TIMER_NAME)));
	}
	catch (error) {
		picker.replaceChildren(new Option(TIMER_NAME, TIMER_NAME, true, true));
	}
	const link = $('timer-link');
	link.href = TIMER_URL;
	link.firstElementChild.textContent = `/${TIMER_URL}`;
}

$('timer-picker').addEventListener('change', (event) => {
	location.search = `?timer=${encodeURIComponent(event.target.value)}`;
});
$('create-orders').addEventListener('click', createOrders);
$('pay-order').addEventListener('click', payOldest);
$('stop-timer').addEventListener('click', stopTimer);
listTimers();
refresh();
