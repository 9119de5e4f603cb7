// The console's only way to the application: the wheeltimer endpoint, on the page's own origin.
// Whatever secures Actuator (exposure, access, Spring Security) answers these requests as it
// answers any other client's, and the console shows its refusals as they come.

const meta = document.querySelector('meta[name="wheel-timer-endpoint"]');

/** The endpoint's URL, as the server wrote it into the page: /actuator/wheeltimer by default. */
export const ENDPOINT = (meta && meta.content) || 'actuator/wheeltimer';

/** A refusal or failure of the endpoint, with the message its body gave, if any. */
export class EndpointError extends Error {

	constructor(status, message) {
		super(message);
		this.status = status;
	}

}

function url(path, query) {
	const parts = [ENDPOINT, ...path.map((part) => encodeURIComponent(part))];
	const search = new URLSearchParams();
	Object.entries(query || {}).forEach(([name, value]) => {
		if (value !== undefined && value !== null && value !== '') {
			search.set(name, value);
		}
	});
	const text = search.toString();
	return parts.join('/') + (text ? `?${text}` : '');
}

async function answer(response) {
	const text = await response.text();
	let json = null;
	try {
		json = text ? JSON.parse(text) : null;
	}
	catch (notJson) {
		// A login page or a proxy's error page: the status says enough.
	}
	if (!response.ok) {
		throw new EndpointError(response.status, describe(response, json));
	}
	return json;
}

function describe(response, json) {
	const said = json && (json.message || json.detail || json.error);
	if (response.status === 401) {
		return `HTTP 401: not signed in${said ? ` (${said})` : ''}. The application secures Actuator; sign in and reload.`;
	}
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
		headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin',
	});
	return answer(response);
}

/** A POST (with a JSON body) or a DELETE of {endpoint}/{path...}. */
export async function change(method, path, body) {
	const response = await fetch(url(path), {
		method,
		headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
		credentials: 'same-origin',
	});
	return answer(response);
}
