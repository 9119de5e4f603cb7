package io.github.wheeltimer.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The console's one HTML page. It carries no data: only the endpoint's URL, which depends on the
 * request's servlet context path, so the page is written per request from a template read once.
 * Its scripts and styles are plain files beside it, served by {@link ConsoleResources}.
 */
final class ConsolePage {

	static final String TEMPLATE = "io/github/wheeltimer/console/console.html";

	private static final String ENDPOINT_PLACEHOLDER = "{{endpoint}}";

	/**
	 * The page runs its own modules and talks to its own origin only: nothing inline, nothing from
	 * elsewhere, so a call's arguments or error shown on the page cannot run as script.
	 */
	static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
			+ " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'";

	private static final MediaType HTML = new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8);

	private final String template;

	private final String endpointPath;

	/**
	 * @param endpointPath the endpoint's path below the servlet context path, such as
	 * {@code /actuator/wheeltimer}
	 */
	ConsolePage(String endpointPath) {
		this.template = read(TEMPLATE);
		this.endpointPath = endpointPath;
	}

	/** {@code GET {path}/}: the page, told where the endpoint is. */
	ServerResponse page(ServerRequest request) {
		String endpoint = request.requestPath().contextPath().value() + this.endpointPath;
		return ServerResponse.ok()
			.contentType(HTML)
			// The page is tiny and names the endpoint: always asked again, so a changed path shows.
			.cacheControl(CacheControl.noCache())
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header("Referrer-Policy", "same-origin")
			.body(this.template.replace(ENDPOINT_PLACEHOLDER, HtmlUtils.htmlEscape(endpoint)));
	}

	/**
	 * {@code GET {path}}: to {@code {path}/}, so that the page's relative links to its scripts
	 * resolve below the console's path.
	 */
	ServerResponse redirect(ServerRequest request) {
		String query = request.uri().getRawQuery();
		String location = request.requestPath().value() + "/" + ((query != null) ? "?" + query : "");
		return ServerResponse.status(HttpStatus.FOUND).location(URI.create(location)).build();
	}

	private static String read(String location) {
		try (InputStream in = new ClassPathResource(location, ConsolePage.class.getClassLoader()).getInputStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("The console's page is missing from its jar: " + location, ex);
		}
	}

}
