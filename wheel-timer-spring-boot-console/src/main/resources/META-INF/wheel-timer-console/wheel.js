// The live drawing of a timer's wheel, from the wheeltimer endpoint's details of one timer
// (GET {endpoint}/{timer}): level 0 as the inner ring, each upper level as a ring around it, the
// hands, the table of levels, and the timer's counters wherever the page has a place for them.
// An ES module with no dependencies; the console and the sample's page both import it.

const SVG = 'http://www.w3.org/2000/svg';
const MAX_SEGMENTS = 512;            // more would be thinner than a pixel
// Level 0 is the inner ring; each upper level is a ring around it, thinner the more levels there
// are, within the drawing's radius. A wheel that reports level 0 alone keeps a single wide ring.
const RINGS = { hole: 126, level0: 58, gap: 7, edge: 292, widest: 40, between: 2.5 };
const SINGLE_RING = { inner: 165, outer: 235 };
const COUNTERS = ['scheduled', 'completed', 'cancelled', 'failed', 'withdrawn', 'running', 'unprocessed', 'rejected'];

// ---- durations ---------------------------------------------------------------------------------

/**
 * Milliseconds in an ISO-8601 duration as Java writes them: PT0.1S, PT29M59.6S, PT1H2M, and, when
 * overdue, PT-0.1S or PT-1M-30S (each part signed).
 */
export function millis(iso) {
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
export function formatMillis(ms) {
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

export function plural(count, noun) {
	return `${count} ${noun}${count === 1 ? '' : 's'}`;
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

/** Lighter for few timeouts, darker for many; a single timeout must still stand out from empty. */
function shade(timeouts, largest) {
	const scale = Math.log1p(Math.max(largest, 4));
	const t = Math.min(1, Math.log1p(timeouts) / scale);
	return `hsl(212 75% ${Math.round(72 - t * 42)}%)`;
}

/** Fills one slot of a ring: its shade, its count, and a tooltip that names it. */
function fill(path, name, slot, largest) {
	const timeouts = slot ? slot.timeouts : 0;
	if (path.dataset.timeouts !== String(timeouts)) {
		path.dataset.timeouts = timeouts;
		path.classList.toggle('occupied', timeouts > 0);
	}
	// Through the CSSOM, which a Content-Security-Policy without 'unsafe-inline' allows.
	path.style.fill = timeouts ? shade(timeouts, largest) : '';
	const due = slot && (slot.dueIn < 0 ? `overdue by ${formatMillis(-slot.dueIn)}` : `in ${formatMillis(slot.dueIn)}`);
	const title = slot
		? `${name}: ${plural(timeouts, 'timeout')}, ${timeouts === 1 ? 'due' : 'the first due'} ${due}`
		: `${name}: empty`;
	if (path.firstChild.textContent !== title) {
		path.firstChild.textContent = title;
	}
}

function setText(element, text) {
	if (element && element.textContent !== text) {
		element.textContent = text;
	}
}

/** Sets a number, briefly highlighted when it changed. */
function setNumber(element, value) {
	const text = String(value);
	if (element && element.textContent !== text) {
		element.textContent = text;
		element.classList.remove('changed');
		void element.offsetWidth;            // restart the highlight animation
		element.classList.add('changed');
	}
}

const DRAWING = `
<svg id="wheel" viewBox="-300 -300 600 600" role="img" aria-labelledby="wheel-caption">
	<title id="wheel-caption">The wheel: level 0 inside, one segment per bucket, and each upper level a ring of 64 slots around it; darker when a slot holds more timeouts; the hand points at the current tick, and each upper level marks the slot its hand is in</title>
	<g id="buckets"></g>
	<g id="upper-levels"></g>
	<g id="scale"></g>
	<g id="hand">
		<line x1="0" y1="-150" x2="0" y2="-268"></line>
		<path d="M -7 -142 L 7 -142 L 0 -156 Z"></path>
	</g>
	<text id="pending-count" y="-8">–</text>
	<text id="pending-label" y="22">pending</text>
	<text id="tick-label" y="48"></text>
</svg>
<p class="wheel-legend">
	<span class="key"><span class="swatch empty"></span> empty</span>
	<span class="key"><span class="swatch few"></span><span class="swatch many"></span> more timeouts, darker (per ring)</span>
	<span class="key"><span class="hand-key"></span> hands: level 0's sweeps, each ring's marks its slot</span>
</p>
<p class="wheel-caption">
	The inner ring is level 0: one bucket per tick, which fires when the hand leaves it. Each outer ring is a
	level above (L1, L2…): 64 slots, each spanning a whole turn of the ring inside it. A call waits on the
	innermost ring whose turn holds its due time, and moves one or more rings in when that ring's hand reaches
	its slot.
</p>
<div class="wheel-levels">
	<table class="levels" aria-label="The levels of the wheel">
		<thead><tr><th>level</th><th>slots</th><th>one turn</th><th>hand</th><th>timeouts</th><th>next due</th><th>moved down</th></tr></thead>
		<tbody id="levels"></tbody>
	</table>
</div>`;

/**
 * The drawing of one timer, inside a container of the page. {@link Wheel#draw} takes the timer's
 * details each time they are read; between two reads, the hand sweeps on by itself, predicted from
 * the tick duration, but never more than {@code maxPredictionMs} ahead of the last read, so a
 * stalled worker shows a stalled hand.
 *
 * Besides the drawing, draw() fills the page's elements with these ids, where it has them: state,
 * geometry, counter-<name> (scheduled, pending, completed, cancelled, failed, withdrawn, running, unprocessed,
 * rejected), balance, tick-lag, max-tick-lag, mean-lateness.
 */
export class Wheel {

	constructor(container, { maxPredictionMs = 1000 } = {}) {
		container.innerHTML = DRAWING;
		this.$ = (id) => container.querySelector(`#${id}`);
		this.maxPredictionMs = maxPredictionMs;
		this.shape = '';          // the slots of each level, as the rings were built for them
		this.bucketCount = 0;
		this.segments = [];       // level 0: one <path> per bucket, or per run of buckets on a large wheel
		this.perSegment = 1;
		this.currentSegment = -1;
		this.upper = [];          // levels 1 and up: { slots: one <path> per slot, hand: its <line>, current: its slot }
		// The last read of the worker's tick, and when it was taken, so the hand can sweep smoothly
		// between two reads instead of jumping five buckets at a time.
		this.tick = null;
		this.tickMs = 100;
		this.sampledAt = 0;
		this.running = false;
		this.levelRows = new Map();
		requestAnimationFrame(() => this.sweepHand());
	}

	/** Draws a timer's details, as GET {endpoint}/{timer} answers them. */
	draw(timer) {
		this.tick = timer.tick;
		this.tickMs = millis(timer.tickDuration) || 100;
		this.sampledAt = performance.now();
		this.running = timer.state === 'STARTED' && timer.worker.alive;

		const status = !timer.worker.alive && timer.state === 'STARTED' ? 'DEAD' : timer.state;
		const state = document.getElementById('state');
		if (state) {
			setText(state, status);
			state.className = `badge ${status.toLowerCase()}`;
		}
		setText(document.getElementById('geometry'), `${formatMillis(this.tickMs)} ticks × ${timer.ticksPerWheel} buckets `
			+ `= ${formatMillis(this.tickMs * timer.ticksPerWheel)} per turn`);

		this.drawLevels(timer.levels && timer.levels.length ? timer.levels
			: [{ index: 0, slotSpan: timer.tickDuration, slots: timer.ticksPerWheel, hand: timer.hand, timeouts: 0 }]);
		setText(this.$('pending-count'), String(timer.pendingTimeouts));
		drawCounters(timer);
	}

	/**
	 * Builds level 0's ring, one segment per bucket, or per run of buckets on a wheel too large to
	 * draw bucket by bucket (the wheel size is a power of two, so the runs divide it evenly); then one
	 * ring of slots per upper level around it.
	 */
	buildRings(levels) {
		const rings = ringsFor(levels.length);
		const bucketCount = levels[0].slots;
		const perSegment = Math.max(1, bucketCount / MAX_SEGMENTS);
		const segmentCount = bucketCount / perSegment;
		this.segments = [];
		const buckets = this.$('buckets');
		buckets.replaceChildren();
		for (let segment = 0; segment < segmentCount; segment++) {
			const path = svg('path', { d: sectorPath(segment, segmentCount, rings[0]), class: 'bucket' });
			path.dataset.level = 0;
			path.dataset.bucket = segment * perSegment;
			path.dataset.timeouts = 0;
			path.append(svg('title'));
			buckets.append(path);
			this.segments.push(path);
		}
		this.bucketCount = bucketCount;
		this.perSegment = perSegment;
		this.currentSegment = -1;

		this.upper = [];
		const upperLevels = this.$('upper-levels');
		upperLevels.replaceChildren();
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
			upperLevels.append(group);
			this.upper.push({ slots, hand, current: -1 });
		});

		// Level 0's hand reaches across its own ring only: each upper level marks its own.
		const level0 = rings[0];
		const hand = this.$('hand');
		const line = hand.querySelector('line');
		line.setAttribute('y1', -(level0.inner - 15));
		line.setAttribute('y2', -(level0.outer + 3));
		hand.querySelector('path').setAttribute('d',
			`M -7 ${-(level0.inner - 23)} L 7 ${-(level0.inner - 23)} L 0 ${-(level0.inner - 9)} Z`);
		const scale = this.$('scale');
		scale.replaceChildren();
		for (let quarter = 0; quarter < 4 && bucketCount >= 4; quarter++) {
			const angle = angleOf(quarter, 4);
			const radius = level0.inner - 34;
			const label = svg('text', { x: (radius * Math.cos(angle)).toFixed(2), y: (radius * Math.sin(angle)).toFixed(2) });
			label.textContent = (bucketCount / 4) * quarter;
			scale.append(label);
		}
		this.shape = levels.map((level) => level.slots).join(',');
		this.levelRows.clear();
		this.$('levels').replaceChildren();
	}

	/** The occupied buckets, added up per segment; a segment is due when its first bucket is. */
	segmentsOf(occupied) {
		const segments = new Map();
		for (const bucket of occupied) {
			const index = Math.floor(bucket.index / this.perSegment);
			const segment = segments.get(index);
			const dueIn = millis(bucket.dueIn);
			segments.set(index, segment === undefined ? { timeouts: bucket.timeouts, dueIn } : {
				timeouts: segment.timeouts + bucket.timeouts,
				dueIn: Math.min(segment.dueIn, dueIn),
			});
		}
		return segments;
	}

	drawLevel0(level) {
		const segments = this.segmentsOf(level.occupied || []);
		const largest = Math.max(0, ...[...segments.values()].map((segment) => segment.timeouts));
		const span = formatMillis(millis(level.slotSpan));
		this.segments.forEach((path, index) => {
			const first = index * this.perSegment;
			const name = this.perSegment === 1 ? `level 0 · bucket ${first} (${span})`
				: `level 0 · buckets ${first}–${first + this.perSegment - 1} (${span} each)`;
			fill(path, name, segments.get(index), largest);
		});
	}

	drawUpperLevel(level, ring) {
		const slots = new Map((level.occupied || []).map((slot) => [slot.index, { ...slot, dueIn: millis(slot.dueIn) }]));
		const largest = Math.max(0, ...[...slots.values()].map((slot) => slot.timeouts));
		const span = formatMillis(millis(level.slotSpan));
		ring.slots.forEach((path, index) => {
			const here = index === level.hand ? ' · the hand is here' : '';
			fill(path, `level ${level.index} · slot ${index} of ${level.slots} (${span} each)${here}`, slots.get(index),
				largest);
		});
		if (level.hand !== ring.current) {
			ring.slots[ring.current]?.classList.remove('current');
			ring.slots[level.hand]?.classList.add('current');
			ring.hand.setAttribute('transform', `rotate(${((level.hand + 0.5) / level.slots) * 360})`);
			ring.current = level.hand;
		}
	}

	drawLevels(levels) {
		if (levels.map((level) => level.slots).join(',') !== this.shape) {
			this.buildRings(levels);
		}
		this.drawLevel0(levels[0]);
		levels.slice(1).forEach((level, i) => this.drawUpperLevel(level, this.upper[i]));
		// One row per level, kept and updated cell by cell: the table never jumps.
		const body = this.$('levels');
		levels.forEach((level) => {
			let row = this.levelRows.get(level.index);
			if (!row) {
				row = document.createElement('tr');
				row.dataset.level = level.index;
				for (let i = 0; i < 7; i++) {
					row.append(document.createElement('td'));
				}
				body.append(row);
				this.levelRows.set(level.index, row);
			}
			const span = millis(level.slotSpan);
			[level.index, `${level.slots} × ${formatMillis(span)}`, formatMillis(span * level.slots), level.hand,
				level.timeouts, level.nextDue ? formatMillis(millis(level.nextDue)) : '–',
				level.index === 0 ? '–' : level.moves].forEach((text, i) => setText(row.cells[i], String(text)));
		});
	}

	sweepHand() {
		if (this.tick !== null && this.bucketCount > 0 && this.$('hand').isConnected) {
			let position = this.tick;
			if (this.running) {
				const elapsed = Math.min(performance.now() - this.sampledAt, this.maxPredictionMs);
				position += elapsed / this.tickMs;
			}
			const degrees = ((position % this.bucketCount) / this.bucketCount) * 360;
			this.$('hand').setAttribute('transform', `rotate(${degrees.toFixed(2)})`);
			const tick = Math.floor(position);
			const bucket = tick % this.bucketCount;
			// The label follows the hand, not the last read, so the two never disagree.
			setText(this.$('tick-label'), `tick ${tick} · bucket ${bucket}`);
			const segment = Math.floor(bucket / this.perSegment);
			if (segment !== this.currentSegment) {
				this.segments[this.currentSegment]?.classList.remove('current');
				this.segments[segment].classList.add('current');
				this.currentSegment = segment;
			}
		}
		requestAnimationFrame(() => this.sweepHand());
	}

}

/** The counters, their balance and the lags, into the page's elements that have their ids. */
function drawCounters(timer) {
	const counters = timer.counters;
	COUNTERS.forEach((name) => setNumber(document.getElementById(`counter-${name}`), counters[name]));
	setNumber(document.getElementById('counter-pending'), timer.pendingTimeouts);
	const accounted = counters.completed + counters.failed + counters.withdrawn + counters.cancelled
		+ counters.unprocessed + counters.running + timer.pendingTimeouts;
	setText(document.getElementById('balance'), `scheduled ${counters.scheduled} = completed ${counters.completed}`
		+ ` + failed ${counters.failed} + withdrawn ${counters.withdrawn} + cancelled ${counters.cancelled}`
		+ ` + unprocessed ${counters.unprocessed}`
		+ ` + running ${counters.running} + pending ${timer.pendingTimeouts}`
		+ ` ${accounted === counters.scheduled ? '✓' : '(a moment apart)'}`);
	setText(document.getElementById('tick-lag'), formatMillis(millis(timer.tickLag)));
	setText(document.getElementById('max-tick-lag'), formatMillis(millis(timer.maxTickLag)));
	setText(document.getElementById('mean-lateness'), formatMillis(millis(timer.meanLateness)));
}
