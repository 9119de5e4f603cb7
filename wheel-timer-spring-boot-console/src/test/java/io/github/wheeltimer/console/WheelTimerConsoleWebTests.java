package io.github.wheeltimer.console;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console served by a running application, below a servlet context path and a dispatcher
 * servlet path, at a path of its own, with Actuator's endpoint moved too: the page must point at
 * the endpoint where it really is.
 */
@SpringBootTest(classes = ConsoleTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "server.servlet.context-path=/shop", "spring.mvc.servlet.path=/app",
				"wheel-timer.console.enabled=true",
				"wheel-timer.console.path=/ops/timers", "management.endpoints.web.base-path=/manage",
				"management.endpoints.web.path-mapping.wheeltimer=wheels",
				"management.endpoints.web.exposure.include=wheeltimer" })
class WheelTimerConsoleWebTests {

	private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

	@LocalServerPort
	private int port;

	@Test
	void thePageTellsItsScriptWhereTheEndpointIs() throws Exception {
		HttpResponse<String> page = get("/shop/app/ops/timers/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("text/html").contains("UTF-8"));
		assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");
		assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(ConsolePage.CONTENT_SECURITY_POLICY);
		assertThat(page.body()).contains("<meta name=\"wheel-timer-endpoint\" content=\"/shop/app/manage/wheels\">")
			.contains("<script type=\"module\" src=\"console.js\"></script>")
			.doesNotContain("{{");

		HttpResponse<String> endpoint = get("/shop/app/manage/wheels");
		assertThat(endpoint.statusCode()).as("the endpoint is where the page says").isEqualTo(200);
		assertThat(endpoint.body()).contains("\"wheelTimer\"");
	}

	@Test
	void thePathWithoutItsSlashRedirectsToThePage() throws Exception {
		HttpResponse<String> response = get("/shop/app/ops/timers?timer=wheelTimer");
		assertThat(response.statusCode()).isEqualTo(302);
		assertThat(response.headers().firstValue("Location")).hasValue("/shop/app/ops/timers/?timer=wheelTimer");
	}

	@Test
	void scriptsAndStylesAreServedBelowThePathAndRevalidated() throws Exception {
		for (String asset : new String[] { "console.js", "wheel.js", "durable.js", "api.js", "dom.js" }) {
			HttpResponse<String> script = get("/shop/app/ops/timers/" + asset);
			assertThat(script.statusCode()).as(asset).isEqualTo(200);
			assertThat(script.headers().firstValue("Content-Type")).as(asset)
				.hasValueSatisfying((type) -> assertThat(type).startsWith("text/javascript"));
			assertThat(script.headers().firstValue("Cache-Control")).as(asset).hasValue("no-cache");
			String lastModified = script.headers().firstValue("Last-Modified").orElseThrow();
			HttpResponse<String> again = this.http.send(HttpRequest
				.newBuilder(URI.create("http://localhost:" + this.port + "/shop/app/ops/timers/" + asset))
				.header("If-Modified-Since", lastModified)
				.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(again.statusCode()).as(asset + " unchanged").isEqualTo(304);
		}
		assertThat(get("/shop/app/ops/timers/console.css").headers().firstValue("Content-Type"))
			.hasValueSatisfying((type) -> assertThat(type).startsWith("text/css"));
		assertThat(get("/shop/app/ops/timers/nothing.js").statusCode()).isEqualTo(404);
		assertThat(get("/shop/app/wheel-timer/").statusCode()).as("the default path is not served").isEqualTo(404);
	}

	private HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
