package io.github.wheeltimer.console;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.access.WebInvocationPrivilegeEvaluator;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.DeferredCsrfToken;

/**
 * The console's access as Spring Security sees it, read from the request after its filters ran:
 * the signed-in user from the security context, the CSRF token from the request attribute that
 * {@code CsrfFilter} sets for the application's pages, and the rules through the
 * {@link WebInvocationPrivilegeEvaluator} that Spring Security builds from the application's
 * filter chains (the one its JSP tags and Spring Boot's error pages ask).
 */
final class SpringSecurityAccess implements ConsoleAccess.Security {

	private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();

	private final ObjectProvider<WebInvocationPrivilegeEvaluator> rules;

	SpringSecurityAccess(ObjectProvider<WebInvocationPrivilegeEvaluator> rules) {
		this.rules = rules;
	}

	@Override
	public ConsoleAccess.Answer answer(HttpServletRequest request, @Nullable String method, @Nullable String path) {
		WebInvocationPrivilegeEvaluator rules = this.rules.getIfAvailable();
		CsrfToken token = (CsrfToken) request.getAttribute(CsrfToken.class.getName());
		if (rules == null && token == null) {
			// Spring Security on the class path, but no filter chain guards the application.
			return ConsoleAccess.Answer.UNSECURED;
		}
		Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
		String user = this.trust.isAuthenticated(authentication) ? authentication.getName() : null;
		Boolean allowed = (rules != null && method != null && path != null)
				? rules.isAllowed(request.getContextPath(), path, method, authentication) : null;
		return new ConsoleAccess.Answer(true, user, allowed, (token != null) ? csrf(request, token) : null);
	}

	private static ConsoleAccess.Csrf csrf(HttpServletRequest request, CsrfToken token) {
		String given = token.getToken();
		DeferredCsrfToken deferred = (DeferredCsrfToken) request.getAttribute(DeferredCsrfToken.class.getName());
		String stored = (deferred != null) ? deferred.get().getToken() : null;
		return new ConsoleAccess.Csrf(token.getHeaderName(), given, given.equals(stored) ? null : stored);
	}

}
