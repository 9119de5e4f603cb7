package io.github.wheeltimer.console;

import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.access.WebInvocationPrivilegeEvaluator;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.security.web.csrf.CsrfTokenRequestAttributeHandler;
import org.springframework.security.web.csrf.CsrfTokenRequestHandler;
import org.springframework.security.web.csrf.DefaultCsrfToken;
import org.springframework.security.web.csrf.DeferredCsrfToken;
import org.springframework.security.web.csrf.XorCsrfTokenRequestAttributeHandler;
import org.springframework.web.servlet.function.ServerRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access route's answers, with Spring Security's own CSRF handlers filling the request as its
 * {@code CsrfFilter} does: the token as the handler gives it to pages, and as stored when the two
 * differ.
 */
class ConsoleAccessTests {

	private static final String ENDPOINT = "/actuator/wheeltimer";

	private final CsrfToken stored = new DefaultCsrfToken("X-CSRF-TOKEN", "_csrf", "stored-token");

	@AfterEach
	void signOut() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void withoutSpringSecurityItSaysTheApplicationIsNotSecured() {
		assertThat(answer(new ConsoleAccess(ENDPOINT, null), request())).isEqualTo(ConsoleAccess.Answer.UNSECURED);
	}

	@Test
	void theDefaultHandlerGivesAMaskedTokenAndTheStoredOneBeside() {
		MockHttpServletRequest request = request();
		handle(new XorCsrfTokenRequestAttributeHandler(), request);
		ConsoleAccess.Answer answer = answer(access(null), request);
		assertThat(answer.secured()).isTrue();
		assertThat(answer.csrf()).isNotNull();
		assertThat(answer.csrf().header()).isEqualTo("X-CSRF-TOKEN");
		assertThat(answer.csrf().token()).as("masked").isNotEqualTo("stored-token");
		assertThat(answer.csrf().stored()).isEqualTo("stored-token");
		assertThat(new XorCsrfTokenRequestAttributeHandler().resolveCsrfTokenValue(withHeader(answer.csrf().token()),
				this.stored)).as("the default handler takes the token as given").isEqualTo("stored-token");
	}

	@Test
	void aPlainHandlerGivesTheStoredTokenOnce() {
		MockHttpServletRequest request = request();
		handle(new CsrfTokenRequestAttributeHandler(), request);
		ConsoleAccess.Answer answer = answer(access(null), request);
		assertThat(answer.csrf()).isEqualTo(new ConsoleAccess.Csrf("X-CSRF-TOKEN", "stored-token", null));
	}

	@Test
	void itSaysWhoIsSignedInAndWhetherTheRulesAllowTheAskedChange() {
		signIn(new TestingAuthenticationToken("ops", "secret", "ROLE_OPS"));
		WebInvocationPrivilegeEvaluator rules = rules((uri, method, authentication) -> method.equals("POST")
				&& uri.startsWith(ENDPOINT + "/durable/") && authentication.getAuthorities().toString().contains("OPS"));
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/shop/wheel-timer/access");
		request.setContextPath("/shop");
		request.setParameter("method", "POST");
		request.setParameter("path", "/shop" + ENDPOINT + "/durable/calls/1");
		ConsoleAccess.Answer answer = answer(access(rules), request);
		assertThat(answer.user()).isEqualTo("ops");
		assertThat(answer.allowed()).isTrue();
		assertThat(answer.csrf()).as("CSRF protection off").isNull();

		request.setParameter("method", "DELETE");
		assertThat(answer(access(rules), request).allowed()).isFalse();
	}

	@Test
	void anAnonymousUserIsNobody() {
		signIn(new AnonymousAuthenticationToken("key", "anonymousUser", AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
		ConsoleAccess.Answer answer = answer(access(rules((uri, method, authentication) -> false)), request());
		assertThat(answer.secured()).isTrue();
		assertThat(answer.user()).isNull();
	}

	@Test
	void itAnswersOnlyAboutTheEndpointsOwnPaths() {
		WebInvocationPrivilegeEvaluator rules = rules((uri, method, authentication) -> true);
		for (String path : List.of("/admin/users", "/actuator/wheeltimerx", "/actuator/wheeltimer/../env", "")) {
			MockHttpServletRequest request = request();
			request.setParameter("method", "POST");
			request.setParameter("path", path);
			assertThat(answer(access(rules), request).allowed()).as(path).isNull();
		}
		MockHttpServletRequest request = request();
		request.setParameter("method", "PATCH");
		request.setParameter("path", ENDPOINT);
		assertThat(answer(access(rules), request).allowed()).as("an unknown method").isNull();
	}

	private static WebInvocationPrivilegeEvaluator rules(Rule rule) {
		return new WebInvocationPrivilegeEvaluator() {

			@Override
			public boolean isAllowed(String uri, Authentication authentication) {
				return isAllowed("", uri, "GET", authentication);
			}

			@Override
			public boolean isAllowed(String contextPath, String uri, String method, Authentication authentication) {
				return rule.allows(uri, method, authentication);
			}

		};
	}

	@FunctionalInterface
	private interface Rule {

		boolean allows(String uri, String method, Authentication authentication);

	}

	private ConsoleAccess access(WebInvocationPrivilegeEvaluator rules) {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		if (rules != null) {
			beans.addBean("privilegeEvaluator", rules);
		}
		return new ConsoleAccess(ENDPOINT,
				new SpringSecurityAccess(beans.getBeanProvider(WebInvocationPrivilegeEvaluator.class)));
	}

	/** As CsrfFilter does: the deferred token, then the handler's attributes for pages. */
	private void handle(CsrfTokenRequestHandler handler, MockHttpServletRequest request) {
		DeferredCsrfToken deferred = new DeferredCsrfToken() {

			@Override
			public CsrfToken get() {
				return ConsoleAccessTests.this.stored;
			}

			@Override
			public boolean isGenerated() {
				return false;
			}

		};
		request.setAttribute(DeferredCsrfToken.class.getName(), deferred);
		Supplier<CsrfToken> token = deferred::get;
		handler.handle(request, new MockHttpServletResponse(), token);
	}

	private MockHttpServletRequest withHeader(String token) {
		MockHttpServletRequest request = request();
		request.addHeader("X-CSRF-TOKEN", token);
		return request;
	}

	private static void signIn(Authentication authentication) {
		SecurityContextHolder.getContext().setAuthentication(authentication);
	}

	private static MockHttpServletRequest request() {
		return new MockHttpServletRequest("GET", "/wheel-timer/access");
	}

	private static ConsoleAccess.Answer answer(ConsoleAccess access, MockHttpServletRequest request) {
		try {
			var response = access.access(ServerRequest.create(request, List.of()));
			return (ConsoleAccess.Answer) ((org.springframework.web.servlet.function.EntityResponse<?>) response).entity();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
