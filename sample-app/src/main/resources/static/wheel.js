// Draws the timer's wheel from the Actuator endpoint, twice a second. No framework, no build step.

// The page draws one timer: wheelTimer, or the one named by ?timer= (the picker sets it).
const TIMER_NAME = new URLSearchParams(location.search).get('timer') || 'wheelTimer';
const TIMERS_URL = 'actuator/wheeltimer';
const TIMER_URL = `${TIMERS_URL}/${encodeURIComponent(TIMER_NAME)}`;
const ORDERS_URL = 'orders?limit=8';
const REFRESH_MS = 500;
const MAX_SEGMENTS = 512;            // more would be thinner than a pixel
const SVG = 'http://www.w3.org/2000/svg';
// Level 0 is the inner ring; each upper level is a ring around it, thinner the more levels there
// are, within the drawing's radius. A wheel that reports level 0 alone keeps a single wide ring.
const RINGS = { hole: 126, level0: 58, gap: 7, edge: 292, widest: 40, between: 2.5 };
const SINGLE_RING = { inner: 165, outer: 235 };
const ITEMS = ['a teapot', 'a lamp', 'two mugs', 'a kettle', 'a rug', 'a chair', 'a clock', 'a plant'];

const $ = (id) => document.getElementById(id);

const view = {
	shape: '',          // the slots of each level, as the rings were built for them
	bucketCount: 0,
	segments: [],       // level 0: one <path> per bucket, or per run of buckets on a large wheel
	perSegment: 1,
	currentSegment: -1,
	upper: [],          // levels 1 and up: { slots: one <path> per slot, hand: its <line>, current: its slot }
	// The last sample of the worker's tick, and when it was taken, so the hand can sweep smoothly
	// between two refreshes instead of jumping five buckets at a time.
	tick: null,
	tickMs: 100,
	sampledAt: 0,
	running: false,
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

/**
 * Milliseconds in an ISO-8601 duration as Java writes them: PT0.1S, PT29M59.6S, PT1H2M, and, when
 * overdue, PT-0.1S or PT-1M-30S (each part signed).
 */
function millis(iso) {
	const match = /^(-)?PT(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?[\d.]+)S)?$/.exec(iso || '');
	if (!match) {
		return NaN;
	}
	const ms = ((+match[2] || 0) * 3600 + (+match[3] || 0) * 60 + (+match[4] || 0)) * 1000;
	return match[1] ? -ms : ms;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365.25 * DAY;

/** A duration in its two largest units: upper levels span from seconds to centuries. */
function formatMillis(ms) {
	if (!Number.isFinite(ms)) {
		return '–';
	}
	const size = Math.abs(ms);
	if (size < 1000) {
		return `${Math.round(ms)} ms`;
	}
	if (size < MINUTE) {
		return `${(ms / 1000).toFixed(1)} s`;
	}
	const sign = ms < 0 ? '-' : '';
	const inTwo = (large, largeName, small, smallName) => {
		const smalls = Math.round(size / small);
		const per = Math.round(large / small);
		return `${sign}${Math.floor(smalls / per)} ${largeName} ${smalls % per} ${smallName}`;
	};
	if (size < HOUR) {
		return inTwo(MINUTE, 'min', 1000, 's');
	}
	if (size < DAY) {
		return inTwo(HOUR, 'h', MINUTE, 'min');
	}
	if (size < YEAR) {
		return inTwo(DAY, 'd', HOUR, 'h');
	}
	const years = size / YEAR;
	return `${sign}${years < 100 ? years.toFixed(1) : Math.round(years).toLocaleString('en')} years`;
}

// ---- the rings ---------------------------------------------------------------------------------

function angleOf(position, count) {
	return (position / count) * 2 * Math.PI - Math.PI / 2;   // slot 0 at twelve o'clock, clockwise
}

function point(radius, angle) {
	return `${(radius * Math.cos(angle)).toFixed(2)} ${(radius * Math.sin(angle)).toFixed(2)}`;
}

function sectorPath(index, count, ring) {
	const gap = count <= 256 ? 0.12 : 0;                        // a hairline between slots, when they are wide enough
	const from = angleOf(index + gap / 2, count);
	const to = angleOf(index + 1 - gap / 2, count);
	const large = to - from > Math.PI ? 1 : 0;
	return `M ${point(ring.outer, from)} A ${ring.outer} ${ring.outer} 0 ${large} 1 ${point(ring.outer, to)} `
		+ `L ${point(ring.inner, to)} A ${ring.inner} ${ring.inner} 0 ${large} 0 ${point(ring.inner, from)} Z`;
}

function svg(name, attributes = {}) {
	const element = document.createElementNS(SVG, name);
	Object.entries(attributes).forEach(([key, value]) => element.setAttribute(key, value));
	return element;
}

/** The inner and outer radius of each level's ring, level 0 first. */
function ringsFor(levelCount) {
	if (levelCount <= 1) {
		return [SINGLE_RING];
	}
	const level0 = { inner: RINGS.hole, outer: RINGS.hole + RINGS.level0 };
	const from = level0.outer + RINGS.gap;
	const width = Math.min(RINGS.widest, (RINGS.edge - from) / (levelCount - 1));
	const rings = [level0];
	for (let level = 1; level < levelCount; level++) {
		const inner = from + (level - 1) * width;
		rings.push({ inner, outer: inner + width - RINGS.between });
	}
	return rings;
}

/**
 * Builds level 0's ring, one segment per bucket, or per run of buckets on a wheel too large to
 * draw bucket by bucket (the wheel size is a power of two, so the runs divide it evenly); then one
 * ring of slots per upper level around it.
 */
function buildRings(levels) {
	const rings = ringsFor(levels.length);
	const bucketCount = levels[0].slots;
	const perSegment = Math.max(1, bucketCount / MAX_SEGMENTS);
	const segmentCount = bucketCount / perSegment;
	view.segments = [];
	$('buckets').replaceChildren();
	for (let segment = 0; segment < segmentCount; segment++) {
		const path = svg('path', { d: sectorPath(segment, segmentCount, rings[0]), class: 'bucket' });
		path.dataset.level = 0;
		path.dataset.bucket = segment * perSegment;
		path.dataset.timeouts = 0;
		path.append(svg('title'));
		$('buckets').append(path);
		view.segments.push(path);
	}
	view.bucketCount = bucketCount;
	view.perSegment = perSegment;
	view.currentSegment = -1;

	view.upper = [];
	$('upper-levels').replaceChildren();
	levels.slice(1).forEach((level, i) => {
		const ring = rings[i + 1];
		const group = svg('g', { class: 'level' });
		group.dataset.level = level.index;
		const slots = [];
		for (let slot = 0; slot < level.slots; slot++) {
			const path = svg('path', { d: sectorPath(slot, level.slots, ring), class: 'slot' });
			path.dataset.level = level.index;
			path.dataset.slot = slot;
			path.dataset.timeouts = 0;
			path.append(svg('title'));
			group.append(path);
			slots.push(path);
		}
		const hand = svg('line', { class: 'level-hand', x1: 0, x2: 0, y1: -ring.inner, y2: -ring.outer });
		// Near twelve o'clock the ring runs level, so its name fits along it: in the last slot, the
		// one least often occupied, and clear of slot 0, where the hands of the slowest levels stay.
		const middle = angleOf(level.slots - 0.5, level.slots);
		const radius = (ring.inner + ring.outer) / 2;
		const name = svg('text', {
			class: 'ring-label', x: (radius * Math.cos(middle)).toFixed(2), y: (radius * Math.sin(middle)).toFixed(2),
		});
		name.style.fontSize = `${Math.min(11, (ring.outer - ring.inner) * 0.8).toFixed(1)}px`;
		name.textContent = `L${level.index}`;
		group.append(hand, name);
		$('upper-levels').append(group);
		view.upper.push({ slots, hand, current: -1 });
	});

	// Level 0's hand reaches across its own ring only: each upper level marks its own.
	const level0 = rings[0];
	const line = $('hand').querySelector('line');
	line.setAttribute('y1', -(level0.inner - 15));
	line.setAttribute('y2', -(level0.outer + 3));
	$('hand').querySelector('path').setAttribute('d',
		`M -7 ${-(level0.inner - 23)} L 7 ${-(level0.inner - 23)} L 0 ${-(level0.inner - 9)} Z`);
	const scale = $('scale');
	scale.replaceChildren();
	for (let quarter = 0; quarter < 4 && bucketCount >= 4; quarter++) {
		const angle = angleOf(quarter, 4);
		const radius = level0.inner - 34;
		const label = svg('text', { x: (radius * Math.cos(angle)).toFixed(2), y: (radius * Math.sin(angle)).toFixed(2) });
		label.textContent = (bucketCount / 4) * quarter;
		scale.append(label);
	}
	view.shape = levels.map((level) => level.slots).join(',');
}

/** Lighter for few timeouts, darker for many; a single timeout must still stand out from empty. */
function shade(timeouts, largest) {
	const scale = Math.log1p(Math.max(largest, 4));
	const t = Math.min(1, Math.log1p(timeouts) / scale);
	return `hsl(212 75% ${Math.round(72 - t * 42)}%)`;
}

function plural(count, noun) {
	return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The occupied buckets, added up per segment; a segment is due when its first bucket is. */
function segmentsOf(occupied) {
	const segments = new Map();
	for (const bucket of occupied) {
		const index = Math.floor(bucket.index / view.perSegment);
		const segment = segments.get(index);
		const dueIn = millis(bucket.dueIn);
		segments.set(index, segment === undefined ? { timeouts: bucket.timeouts, dueIn } : {
			timeouts: segment.timeouts + bucket.timeouts,
			dueIn: Math.min(segment.dueIn, dueIn),
		});
	}
	return segments;
}

/** Fills one slot of a ring: its shade, its count, and a tooltip that names it. */
function fill(path, name, slot, largest) {
	const timeouts = slot ? slot.timeouts : 0;
	path.dataset.timeouts = timeouts;
	path.style.fill = timeouts ? shade(timeouts, largest) : '';
	path.classList.toggle('occupied', timeouts > 0);
	const due = slot && (slot.dueIn < 0 ? `overdue by ${formatMillis(-slot.dueIn)}` : `in ${formatMillis(slot.dueIn)}`);
	path.firstChild.textContent = slot
		? `${name}: ${plural(timeouts, 'timeout')}, ${timeouts === 1 ? 'due' : 'the first due'} ${due}`
		: `${name}: empty`;
}

function drawLevel0(level) {
	const segments = segmentsOf(level.occupied || []);
	const largest = Math.max(0, ...[...segments.values()].map((segment) => segment.timeouts));
	const span = formatMillis(millis(level.slotSpan));
	view.segments.forEach((path, index) => {
		const first = index * view.perSegment;
		const name = view.perSegment === 1 ? `level 0 · bucket ${first} (${span})`
			: `level 0 · buckets ${first}–${first + view.perSegment - 1} (${span} each)`;
		fill(path, name, segments.get(index), largest);
	});
}

function drawUpperLevel(level, ring) {
	const slots = new Map((level.occupied || []).map((slot) => [slot.index, { ...slot, dueIn: millis(slot.dueIn) }]));
	const largest = Math.max(0, ...[...slots.values()].map((slot) => slot.timeouts));
	const span = formatMillis(millis(level.slotSpan));
	ring.slots.forEach((path, index) => {
		const here = index === level.hand ? ' · the hand is here' : '';
		fill(path, `level ${level.index} · slot ${index} of ${level.slots} (${span} each)${here}`, slots.get(index), largest);
	});
	if (level.hand !== ring.current) {
		ring.slots[ring.current]?.classList.remove('current');
		ring.slots[level.hand]?.classList.add('current');
		ring.hand.setAttribute('transform', `rotate(${((level.hand + 0.5) / level.slots) * 360})`);
		ring.current = level.hand;
	}
}

function drawLevels(levels) {
	if (levels.map((level) => level.slots).join(',') !== view.shape) {
		buildRings(levels);
	}
	drawLevel0(levels[0]);
	levels.slice(1).forEach((level, i) => drawUpperLevel(level, view.upper[i]));
	$('levels').replaceChildren(...levels.map((level) => {
		const row = document.createElement('tr');
		row.dataset.level = level.index;
		const span = millis(level.slotSpan);
		[level.index, `${level.slots} × ${formatMillis(span)}`, formatMillis(span * level.slots), level.hand,
			level.timeouts, level.nextDue ? formatMillis(millis(level.nextDue)) : '–',
			level.index === 0 ? '–' : level.moves].forEach((text) => {
			const cell = document.createElement('td');
			cell.textContent = text;
			row.append(cell);
		});
		return row;
	}));
}

function sweepHand() {
	if (view.tick !== null && view.bucketCount > 0) {
		let position = view.tick;
		if (view.running) {
			// Predict, but never more than two refreshes ahead of the last sample: a stalled
			// worker must show a stalled hand.
			const elapsed = Math.min(performance.now() - view.sampledAt, 2 * REFRESH_MS);
			position += elapsed / view.tickMs;
		}
		const degrees = ((position % view.bucketCount) / view.bucketCount) * 360;
		$('hand').setAttribute('transform', `rotate(${degrees.toFixed(2)})`);
		const tick = Math.floor(position);
		const bucket = tick % view.bucketCount;
		// The label follows the hand, not the last sample, so the two never disagree.
		$('tick-label').textContent = `tick ${tick} · bucket ${bucket}`;
		const segment = Math.floor(bucket / view.perSegment);
		if (segment !== view.currentSegment) {
			view.segments[view.currentSegment]?.classList.remove('current');
			view.segments[segment].classList.add('current');
			view.currentSegment = segment;
		}
	}
	requestAnimationFrame(sweepHand);
}

// ---- the panels --------------------------------------------------------------------------------

const COUNTERS = ['scheduled', 'completed', 'cancelled', 'failed', 'running', 'unprocessed', 'rejected'];

function setNumber(id, value) {
	const element = $(id);
	const text = String(value);
	if (element.textContent !== text) {
		element.textContent = text;
		element.classList.remove('changed');
		void element.offsetWidth;            // restart the highlight animation
		element.classList.add('changed');
	}
}

function drawTimer(timer) {
	view.tick = timer.tick;
	view.tickMs = millis(timer.tickDuration) || 100;
	view.sampledAt = performance.now();
	view.running = timer.state === 'STARTED' && timer.worker.alive;
	view.state = timer.state;

	const state = $('state');
	const status = !timer.worker.alive && timer.state === 'STARTED' ? 'DEAD' : timer.state;
	state.textContent = status;
	state.className = `badge ${status.toLowerCase()}`;
	const turn = view.tickMs * timer.ticksPerWheel;
	$('geometry').textContent = `${formatMillis(view.tickMs)} ticks × ${timer.ticksPerWheel} buckets `
		+ `= ${formatMillis(turn)} per turn`;

	drawLevels(timer.levels && timer.levels.length ? timer.levels
		: [{ index: 0, slotSpan: timer.tickDuration, slots: timer.ticksPerWheel, hand: timer.hand, timeouts: 0 }]);
	$('pending-count').textContent = timer.pendingTimeouts;

	const counters = timer.counters;
	COUNTERS.forEach((name) => setNumber(`counter-${name}`, counters[name]));
	setNumber('counter-pending', timer.pendingTimeouts);
	const accounted = counters.completed + counters.failed + counters.cancelled + counters.unprocessed
		+ counters.running + timer.pendingTimeouts;
	$('balance').textContent = `scheduled ${counters.scheduled} = completed ${counters.completed} + failed ${counters.failed}`
		+ ` + cancelled ${counters.cancelled} + unprocessed ${counters.unprocessed} + running ${counters.running}`
		+ ` + pending ${timer.pendingTimeouts} ${accounted === counters.scheduled ? '✓' : '(a moment apart)'}`;
	$('tick-lag').textContent = formatMillis(millis(timer.tickLag));
	$('max-tick-lag').textContent = formatMillis(millis(timer.maxTickLag));
	$('mean-lateness').textContent = formatMillis(millis(timer.meanLateness));

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
		view.running = false;
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
requestAnimationFrame(sweepHand);
