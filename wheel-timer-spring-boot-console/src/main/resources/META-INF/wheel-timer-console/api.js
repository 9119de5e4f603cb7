// The console's only way to the application: the wheeltimer endpoint, on the page's own origin.
// Whatever secures Actuator (exposure, access, Spring Security) answers these requests as it
// answers any other client's, and the console shows its refusals as they come.

const meta = document.querySelector('meta[name="wheel-timer-endpoint"]');

/** The endpoint's URL, as the server wrote it into the page: /actuator/wheeltimer by default. */
export const ENDPOINT = (meta && meta.content) || 'actuator/wheeltimer';

/** A refusal or failure of the endpoint, with the message its body gave, if any. */
export class EndpointError extends Error {

	/** `reason`: 'authentication', 'authorisation' or 'csrf' when the application's security refused. */
	constructor(status, message, reason) {
		super(message);
		this.status = status;
		this.reason = reason;
	}

}

// Requests go to absolute URLs on the page's own origin, without the credentials that an address
// such as http://user:password@host/wheel-timer/ carries (HTTP Basic): fetch refuses a URL with them.
const BASE = new URL(document.baseURI);
BASE.username = '';
BASE.password = '';

function url(path, query) {
	const parts = [ENDPOINT, ...path.map((part) => encodeURIComponent(part))];
	const search = new URLSearchParams();
	Object.entries(query || {}).forEach(([name, value]) => {
		if (value !== undefined && value !== null && value !== '') {
			search.set(name, value);
		}
	});
	const text = search.toString();
	return new URL(parts.join('/') + (text ? `?${text}` : ''), BASE).href;
}

async function answer(response) {
	if (signInAsked(response)) {
		throw new EndpointError(response.status, `${NOT_SIGNED_IN} (${statusOf(response)})`, 'authentication');
	}
	const text = await response.text();
	let json = null;
	try {
		json = text ? JSON.parse(text) : null;
	}
	catch (notJson) {
		// A proxy's error page: the status says enough.
	}
	if (!response.ok) {
		throw new EndpointError(response.status, describe(response, json));
	}
	return json;
}

const NOT_SIGNED_IN = 'refused by the application\'s security: not signed in (or the session ended).'
	+ ' Sign in again, then reload this page';

/**
 * Whether the application's security answered with its sign-in instead: a redirect to a login
 * page (not followed, see `redirect: 'manual'`) or a 401 challenge.
 */
function signInAsked(response) {
	return response.type === 'opaqueredirect' || response.status === 401;
}

function statusOf(response) {
	return response.type === 'opaqueredirect' ? 'a redirect to sign in' : `HTTP ${response.status}`;
}

function describe(response, json) {
	const said = json && (json.message || json.detail || json.error);
	if (response.status === 403) {
		return `HTTP 403: refused${said ? `: ${said}` : ''}. The application's security (Spring Security, or the`
			+ ' endpoint\'s access) does not allow this.';
	}
	if (response.status === 405 && !said) {
		return 'HTTP 405: the endpoint does not offer this change; it may be read-only'
			+ ' (management.endpoint.wheeltimer.access).';
	}
	return said ? `${said} (HTTP ${response.status})` : `HTTP ${response.status} ${response.statusText || ''}`.trim();
}

/** GET {endpoint}/{path...}?{query}. */
export async function read(path = [], query) {
	const response = await fetch(url(path, query), {
		headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin', redirect: 'manual',
	});
	return answer(response);
}

/**
 * A POST (with a JSON body) or a DELETE of {endpoint}/{path...}, with the CSRF token the
 * application's security asks for, if it asks for one.
 */
export async function change(method, path, body) {
	const target = url(path);
	const asked = { method, path: new URL(target).pathname };
	security = security || await askAccess();
	let response = await sendEachForm(method, target, body);
	if (response.status === 403) {
		// Refused: the token may have changed since it was read (signed in again, or a new session),
		// or none was read (the page was opened before signing in). Once more with a new one; the
		// same answer says why, if it is refused again.
		const before = tokenIdentity(security);
		security = await askAccess(asked);
		if (security.csrf && tokenIdentity(security) !== before) {
			response = await sendEachForm(method, target, body);
			if (response.status === 403) {
				security = await askAccess(asked);
			}
		}
	}
	if (response.status === 403) {
		throw await refusal(response, security, asked);
	}
	return answer(response);
}

/**
 * Whether the application's security lets the user change calls, asked of a typical change (a
 * POST to a call) when the page opens: `{ secured, user, allowed }`, with `allowed` undefined
 * when it cannot tell. Reads the CSRF token ahead of the first change, too.
 */
export async function changeAccess() {
	const path = new URL(`${ENDPOINT}/durable/calls/00000000-0000-0000-0000-000000000000`, BASE).pathname;
	const answer = await askAccess({ method: 'POST', path });
	if (answer.csrf) {
		security = answer;
	}
	return answer;
}

// ---- the application's security ----------------------------------------------------------------
// Spring Security, where the application has it, refuses a change without a CSRF token: the page
// asks its own route (GET {console}/access, answered after the application's security filters ran)
// for the token, as Spring Security hands it to the application's pages, and sends it in the
// header it names. A refused change is explained from a fresh answer of the same route: whether
// the user is still signed in, and whether the rules allow this change to them; if both, the token
// was refused.

let security = null;      // the route's last answer; asked before the first change
let csrfForm = null;      // the token's form the application took last: 'token' or 'stored'

function send(method, target, body, headers) {
	return fetch(target, {
		method,
		headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
		credentials: 'same-origin',
		redirect: 'manual',
	});
}

/**
 * Sends the change with the token. Spring Security's handlers want it as they gave it to the
 * page (masked, by default), except the one for script-driven pages (csrf.spa()), which wants it
 * as stored, in the header, as script reads it from its cookie. So where script can read the
 * stored token from a cookie, the page sends that first, then the other if it was refused, and
 * keeps to the one taken. A refused token never reaches the endpoint: sending again changes
 * nothing twice.
 */
async function sendEachForm(method, target, body) {
	const csrf = security.csrf;
	if (!csrf) {
		return send(method, target, body, {});
	}
	const forms = readableCookieHolds(csrf.stored)
		? (csrfForm === 'token' ? ['token', 'stored'] : ['stored', 'token']) : ['token'];
	let response;
	for (const form of forms) {
		response = await send(method, target, body, { [csrf.header]: csrf[form] });
		if (response.status !== 403) {
			csrfForm = form;
			break;
		}
	}
	return response;
}

function readableCookieHolds(value) {
	return !!value && document.cookie.split(';').some((cookie) => cookie.trim().split('=')[1] === value);
}

function tokenIdentity(answer) {
	return answer.csrf ? (answer.csrf.stored || answer.csrf.token) : null;
}

/** GET {console}/access: the application's security as it sees this browser (see ConsoleAccess). */
async function askAccess(query) {
	try {
		const response = await fetch(new URL(`access${query ? `?${new URLSearchParams(query)}` : ''}`, BASE).href, {
			headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin', redirect: 'manual',
		});
		if (signInAsked(response)) {
			return { secured: true, user: null, signInAsked: true };
		}
		return response.ok ? await response.json() : { secured: false };
	}
	catch (unreadable) {
		return { secured: false };
	}
}

/** Why the application refused a change with a 403, from the route's answer about that change. */
async function refusal(response, now, asked) {
	if (!now.secured) {
		return new EndpointError(403, describe(response, await response.json().catch(() => null)));
	}
	if (!now.user) {
		return new EndpointError(403, `${NOT_SIGNED_IN} (HTTP 403)`, 'authentication');
	}
	if (now.allowed === false) {
		return new EndpointError(403, `refused by the application's security: ${now.user} is signed in, but its`
			+ ` rules do not allow ${asked.method} ${asked.path} to them. Sign in as an operator with the role they`
			+ ' require (HTTP 403)', 'authorisation');
	}
	if (now.csrf) {
		return new EndpointError(403, 'refused by the application\'s CSRF protection (Spring Security): it did not'
			+ ' accept the token this page sent. Reload the page and try again (HTTP 403)', 'csrf');
	}
	return new EndpointError(403, describe(response, null));
}
