package io.github.wheeltimer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The page at {@code GET /} as the browser tests read it: by the ids and data attributes the page
 * keeps for them.
 */
final class WheelPage implements AutoCloseable {

	private final WebDriver browser = HeadlessChromium.start();

	WheelPage(int port) {
		this.browser.get("http://localhost:" + port + "/");
	}

	void click(String id) {
		this.browser.findElement(By.id(id)).click();
	}

	boolean isEnabled(String id) {
		return this.browser.findElement(By.id(id)).isEnabled();
	}

	String text(String id) {
		return this.browser.findElement(By.id(id)).getText();
	}

	int number(String id) {
		return Integer.parseInt(text(id));
	}

	String handTransform() {
		return this.browser.findElement(By.id("hand")).getDomAttribute("transform");
	}

	/** The ring's segments: one per bucket, or per run of buckets on a large wheel. */
	List<WebElement> segments() {
		return this.browser.findElements(By.cssSelector("#buckets path"));
	}

	List<WebElement> occupiedSegments() {
		return this.browser.findElements(By.cssSelector("#buckets path.occupied"));
	}

	int timeoutsOnTheRing() {
		return occupiedSegments().stream()
			.mapToInt((segment) -> Integer.parseInt(segment.getDomAttribute("data-timeouts")))
			.sum();
	}

	List<String> nextTimeouts() {
		return this.browser.findElements(By.cssSelector("#next-timeouts li")).stream().map(WebElement::getText).toList();
	}

	List<String> ordersWithStatus(String status) {
		return this.browser.findElements(By.cssSelector("#orders tr[data-status=" + status + "]"))
			.stream()
			.map(WebElement::getText)
			.toList();
	}

	/** Keeps what the page showed last, for a human to look at: {@code target/<name>.png}. */
	void screenshot(String name) throws IOException {
		Path screenshot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE).toPath();
		Files.copy(screenshot, Path.of("target", name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

	@Override
	public void close() {
		this.browser.quit();
	}

}
