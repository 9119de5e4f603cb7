package io.github.wheeltimer.console;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.StringHttpMessageConverter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;

class ConsolePageTests {

	private static final List<HttpMessageConverter<?>> CONVERTERS = List.of(new StringHttpMessageConverter());

	@Test
	void theEndpointUrlIsEscapedIntoThePage() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/a\"b<c>/wheel-timer/");
		request.setContextPath("/a\"b<c>");
		MockHttpServletResponse response = new MockHttpServletResponse();
		ServerResponse page = new ConsolePage("/actuator/wheeltimer").page(ServerRequest.create(request, CONVERTERS));
		page.writeTo(request, response, () -> CONVERTERS);
		assertThat(response.getContentAsString())
			.contains("<meta name=\"wheel-timer-endpoint\" content=\"/a&quot;b&lt;c&gt;/actuator/wheeltimer\">")
			.doesNotContain("b<c>");
	}

}
