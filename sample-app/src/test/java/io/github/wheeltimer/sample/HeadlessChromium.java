package io.github.wheeltimer.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's {@code chromium} driven through its {@code chromedriver}, headless. Selenium is given
 * both paths, so it never looks for (or downloads) a browser of its own.
 * <p>
 * As a JUnit condition, it skips a test when they are not installed, saying how to install them;
 * except on CI ({@code CI} set in the environment), where {@code .ci/run} installs them, so a
 * missing browser fails the test instead of passing it by skipping it.
 */
public final class HeadlessChromium implements ExecutionCondition {

	static final String INSTALL_HINT = "install them with: sudo apt-get install chromium chromium-driver";

	private static final Optional<Path> BROWSER = find("chromium");

	private static final Optional<Path> DRIVER = find("chromedriver");

	public static WebDriver start() {
		if (BROWSER.isEmpty() || DRIVER.isEmpty()) {
			throw new IllegalStateException(missing() + "; " + INSTALL_HINT);
		}
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.get().toFile())
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(BROWSER.get().toFile());
		// The flags that let Chromium run as root in a container with no GPU, and keep it off a
		// network it cannot reach (otherwise it keeps trying, many connections at a time).
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
				"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
				"--disable-sync", "--window-size=1400,1000");
		return new ChromeDriver(service, options);
	}

	/**
	 * Reads a property of every element that matches, in one script: the pages redraw their lists
	 * twice a second, so elements found by one call may be gone by the next.
	 */
	public static List<String> all(WebDriver browser, String selector, String property) {
		return script(browser, "return Array.from(document.querySelectorAll(arguments[0]), (e) => String(e." + property
				+ "));", selector);
	}

	@SuppressWarnings("unchecked")
	public static <T> T script(WebDriver browser, String script, Object... arguments) {
		return (T) ((JavascriptExecutor) browser).executeScript(script, arguments);
	}

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		if (BROWSER.isPresent() && DRIVER.isPresent()) {
			return ConditionEvaluationResult.enabled("Chromium at " + BROWSER.get() + ", ChromeDriver at " + DRIVER.get());
		}
		if (System.getenv("CI") != null) {
			return ConditionEvaluationResult.enabled("CI must run the browser test; " + missing());
		}
		String reason = "Skipping the browser test: " + missing() + "; " + INSTALL_HINT;
		System.err.println(reason);
		return ConditionEvaluationResult.disabled(reason);
	}

	private static String missing() {
		return Stream.of(BROWSER.isEmpty() ? "chromium" : null, DRIVER.isEmpty() ? "chromedriver" : null)
			.filter((name) -> name != null)
			.reduce((a, b) -> a + " and " + b)
			.map((names) -> names + " not found on the PATH or in /usr/bin")
			.orElse("nothing missing");
	}

	private static Optional<Path> find(String command) {
		String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin";
		return Stream.of(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, command))
			.filter(Files::isExecutable)
			.findFirst();
	}

}
