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

/**
 * The page at {@code GET /} as the browser tests read it: by the ids and data attributes the page
 * keeps for them.
 */
final class WheelPage implements AutoCloseable {

	private final WebDriver browser = HeadlessChromium.start();

	WheelPage(int port) {
		this(port, "");
	}

	/** The page with a query, such as {@code ?timer=retries}. */
	WheelPage(int port, String query) {
		this.browser.get("http://localhost:" + port + "/" + query);
	}

	void click(String id) {
		this.browser.findElement(By.id(id)).click();
	}

	boolean isEnabled(String id) {
		return this.browser.findElement(By.id(id)).isEnabled();
	}

	String text(String id) {
		return script("return document.getElementById(arguments[0]).innerText;", id);
	}

	int number(String id) {
		return Integer.parseInt(text(id));
	}

	String handTransform() {
		return script("return document.getElementById('hand').getAttribute('transform');");
	}

	/** The timers the picker offers, and the one it shows as picked. */
	List<String> timerChoices() {
		return all("#timer-picker option", "value");
	}

	String pickedTimer() {
		return script("return document.getElementById('timer-picker').value;");
	}

	/** The number of segments on level 0's ring: one per bucket, or per run of buckets on a large wheel. */
	int segmentCount() {
		return this.<Number>script("return document.querySelectorAll('#buckets path').length;").intValue();
	}

	/** The number of slots of each upper level's ring, level 1 first: one ring per level above 0. */
	List<Integer> upperRingSlots() {
		return all("#upper-levels g.level", "querySelectorAll('path').length").stream().map(Integer::valueOf).toList();
	}

	/** The inline style of each segment or slot, on any ring, that holds timeouts. */
	List<String> occupiedSegmentStyles() {
		return all("#wheel path.occupied", "getAttribute('style')");
	}

	/** The timeouts the rings show, added up over every level. */
	int timeoutsOnTheRings() {
		return all("#wheel path.occupied", "dataset.timeouts").stream().mapToInt(Integer::parseInt).sum();
	}

	/** The tooltips of the segments and slots that hold timeouts, level 0 first. */
	List<String> occupiedTooltips() {
		return all("#wheel path.occupied", "firstChild.textContent");
	}

	/** The tooltip of the slot an upper level's hand is in. */
	String handSlotTooltip(int level) {
		return script("return document.querySelector(`#upper-levels g[data-level='${arguments[0]}'] path.current`)"
				+ "?.firstChild.textContent;", level);
	}

	/** The rows of the levels' table, one per level, their cells separated by tabs. */
	List<String> levelRows() {
		return all("#levels tr", "innerText");
	}

	/**
	 * Answers the page's reads of {@code /actuator/wheeltimer/<timer>} with this JSON from now on,
	 * instead of the endpoint's: the page is drawn from a wheel of our choosing. The other requests
	 * go through.
	 */
	void answerTimerReadsWith(String timer, String json) {
		script("""
				const [url, body] = arguments;
				const fetched = window.fetch;
				window.fetch = (resource, init) => (resource === url && !(init && init.method))
					? Promise.resolve(new Response(body, { headers: { 'Content-Type': 'application/json' } }))
					: fetched(resource, init);""", "actuator/wheeltimer/" + timer, json);
	}

	List<String> nextTimeouts() {
		return all("#next-timeouts li", "innerText");
	}

	List<String> ordersWithStatus(String status) {
		return all("#orders tr[data-status=" + status + "]", "innerText");
	}

	/**
	 * Reads a property of every element that matches, in one script: the page redraws its lists
	 * twice a second, so elements found by one call may be gone by the next.
	 */
	private List<String> all(String selector, String property) {
		return HeadlessChromium.all(this.browser, selector, property);
	}

	private <T> T script(String script, Object... arguments) {
		return HeadlessChromium.script(this.browser, script, arguments);
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
