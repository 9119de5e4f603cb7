package io.github.wheeltimer.console;

import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * {@code GET {path}/access}: what the page needs from the application's security to change
 * things through the endpoint, and to explain a refusal. Without Spring Security it says so, and
 * the page sends its changes as they are.
 * <p>
 * With Spring Security, it answers who is signed in, the CSRF token to send with every change (the
 * way Spring Security hands a token to the application's own pages: from the request, after its
 * filters ran), and, asked about one change ({@code ?method=DELETE&path=...}, a path of the
 * endpoint only), whether the rules allow it to this user. That tells the page whether a refused
 * change was refused for its token, its sign-in or the user's roles. It answers only about the
 * caller, who could try the change anyway, and never echoes the request.
 */
final class ConsoleAccess {

	private static final Set<String> METHODS = Set.of("GET", "POST", "DELETE");

	private final String endpointPath;

	private final @Nullable Security security;

	/**
	 * @param endpointPath the endpoint's path below the servlet context path, such as
	 * {@code /actuator/wheeltimer}
	 * @param security Spring Security's view of a request, or {@code null} without Spring Security
	 */
	ConsoleAccess(String endpointPath, @Nullable Security security) {
		this.endpointPath = endpointPath;
		this.security = security;
	}

	ServerResponse access(ServerRequest request) {
		Answer answer = (this.security != null)
				? this.security.answer(request.servletRequest(), change(request, "method"), changedPath(request))
				: Answer.UNSECURED;
		// The answer carries a CSRF token: never stored, never shared.
		return ServerResponse.ok()
			.contentType(MediaType.APPLICATION_JSON)
			.cacheControl(CacheControl.noStore())
			.header("X-Content-Type-Options", "nosniff")
			.body(answer);
	}

	private static @Nullable String change(ServerRequest request, String name) {
		String method = request.param(name).orElse(null);
		return (method != null && METHODS.contains(method)) ? method : null;
	}

	/** @return the asked path below the context path, if it is one of the endpoint's */
	private @Nullable String changedPath(ServerRequest request) {
		String path = request.param("path").orElse(null);
		String context = request.requestPath().contextPath().value();
		if (path == null || !path.startsWith(context) || path.contains("..")) {
			return null;
		}
		String below = path.substring(context.length());
		return (below.equals(this.endpointPath) || below.startsWith(this.endpointPath + "/")) ? below : null;
	}

	/**
	 * What the application's security says of the browser that asks.
	 * @param secured whether Spring Security guards the application
	 * @param user who is signed in, or {@code null} if nobody is
	 * @param allowed whether the rules allow the asked change to this user, or {@code null} if none
	 * was asked (or the rules cannot be read)
	 * @param csrf the token to send with every change, or {@code null} if the application asks for
	 * none
	 */
	record Answer(boolean secured, @Nullable String user, @Nullable Boolean allowed, @Nullable Csrf csrf) {

		static final Answer UNSECURED = new Answer(false, null, null, null);

	}

	/**
	 * A CSRF token and the header that carries it.
	 * @param header the header's name, such as {@code X-CSRF-TOKEN}
	 * @param token the token as the application's CSRF handler gives it to its pages (masked
	 * afresh for each request by default)
	 * @param stored the token as its repository stores it, when it differs: what a handler for
	 * script-driven pages ({@code csrf.spa()}) expects in the header, as in its readable
	 * {@code XSRF-TOKEN} cookie
	 */
	record Csrf(String header, String token, @Nullable String stored) {
	}

	/** Spring Security's view of one request: apart, so that nothing loads it without Spring Security. */
	@FunctionalInterface
	interface Security {

		/**
		 * @param request the request, after the security filters ran
		 * @param method the asked change's HTTP method, or {@code null}
		 * @param path the asked change's path below the context path, or {@code null}
		 */
		Answer answer(HttpServletRequest request, @Nullable String method, @Nullable String path);

	}

}
