package io.github.wheeltimer.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The operator console at {@code /wheel-timer/}, as the browser tests drive it: through its
 * buttons, forms and dialogs, found by the ids and data attributes the console keeps for them.
 */
public final class ConsoleScreen implements AutoCloseable {

	/** Where the screenshots of {@code docs/console.md} go, from the sample's directory. */
	static final Path SCREENSHOTS = Path.of("..", "docs", "images");

	private final WebDriver browser = HeadlessChromium.start();

	private final int port;

	public ConsoleScreen(int port) {
		this.port = port;
	}

	/** The browser, for what surrounds the console: the application's sign-in page, its cookies. */
	public WebDriver browser() {
		return this.browser;
	}

	/** Opens the console on a tab: {@code timers}, {@code durable} or {@code instances}. */
	public ConsoleScreen open(String tab) {
		this.browser.get("http://localhost:" + this.port + "/wheel-timer/#" + tab);
		return this;
	}

	public void showTab(String tab) {
		this.browser.findElement(By.id("tab-" + tab)).click();
	}

	/** Finds the calls of a method with a key, through the search form. */
	public void search(String method, String key) {
		WebElement methodInput = this.browser.findElement(By.id("search-method"));
		methodInput.clear();
		methodInput.sendKeys(method);
		WebElement keyInput = this.browser.findElement(By.id("search-key"));
		keyInput.clear();
		keyInput.sendKeys(key);
		this.browser.findElement(By.id("search")).click();
	}

	/** The rows of a table of calls ({@code search-results} or {@code failed-calls}), cells separated by tabs. */
	public List<String> calls(String table) {
		return all("#" + table + " tr[data-call]", "innerText");
	}

	/** The text of the row a table shows when it has no call. */
	public String emptyText(String table) {
		return script("return document.querySelector(`#${arguments[0]} tr.empty`)?.innerText ?? '';", table);
	}

	/** Clicks a button of the call with this key in a table: {@code run}, {@code cancel}, {@code requeue}... */
	public void act(String table, String key, String action) {
		row(table, key).findElement(By.cssSelector("button[data-action='" + action + "']")).click();
	}

	/** Opens the details of the call with this key, and returns them. */
	public String details(String table, String key) {
		WebElement row = row(table, key);
		row.findElement(By.cssSelector("button[aria-expanded]")).click();
		return script("return arguments[0].nextElementSibling.innerText;", row);
	}

	/** The actions offered on the call with this key. */
	public List<String> actions(String table, String key) {
		return script("return Array.from(arguments[0].querySelectorAll('button[data-action]'), (b) => b.dataset.action);",
				row(table, key));
	}

	private WebElement row(String table, String key) {
		return this.browser.findElements(By.cssSelector("#" + table + " tr[data-call]"))
			.stream()
			.filter((row) -> row.findElement(By.cssSelector("td")).getText().equals(key))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No call with key " + key + " in #" + table + ": " + calls(table)));
	}

	public boolean dialogOpen() {
		return script("return document.getElementById('confirm').open;");
	}

	public String dialogText() {
		return script("return document.getElementById('confirm-title').innerText + ' ' "
				+ "+ document.getElementById('confirm-text').innerText;");
	}

	/** Answers the open confirmation: the destructive button, or "Keep it". */
	public void confirm(boolean ok) {
		this.browser.findElement(By.id(ok ? "confirm-ok" : "confirm-keep")).click();
	}

	/**
	 * Opens the reschedule dialog of the call with this key, moves the time it shows (the call's due
	 * time) by some minutes, and confirms.
	 */
	public void reschedule(String table, String key, int minutes) {
		act(table, key, "reschedule");
		script("""
				const input = document.getElementById('reschedule-at');
				const due = new Date(input.value);
				due.setMinutes(due.getMinutes() + arguments[0]);
				const pad = (n) => String(n).padStart(2, '0');
				input.value = `${due.getFullYear()}-${pad(due.getMonth() + 1)}-${pad(due.getDate())}T`
					+ `${pad(due.getHours())}:${pad(due.getMinutes())}:${pad(due.getSeconds())}`;""", minutes);
		this.browser.findElement(By.id("reschedule-ok")).click();
	}

	/**
	 * Answers the console's changes (its POSTs and DELETEs to the endpoint) with this status and
	 * body from now on, as a refusing server or Spring Security would; its reads go through.
	 */
	public void answerChangesWith(int status, String body) {
		script("""
				const [status, body] = arguments;
				const fetched = window.fetch;
				window.fetch = (resource, init) => (init && init.method)
					? Promise.resolve(new Response(body, { status, headers: { 'Content-Type': 'application/json' } }))
					: fetched(resource, init);""", status, body);
	}

	/** The status line, where the console says what a change did or why it was refused. */
	public String status() {
		return text("status");
	}

	public String text(String id) {
		return script("return document.getElementById(arguments[0]).innerText;", id);
	}

	public boolean displayed(String id) {
		return this.browser.findElement(By.id(id)).isDisplayed();
	}

	/** The labels of the buttons that would change something and that a user can see. */
	public List<String> visibleChangeButtons() {
		return script("return Array.from(document.querySelectorAll('[data-write]'))"
				+ ".filter((b) => b.offsetParent !== null).map((b) => b.innerText);");
	}

	/** The rows of the table of methods no live instance knows. */
	public List<String> unknownMethods() {
		return all("#unknown-methods tr:not(.empty)", "innerText");
	}

	/** The rows of the table of calls no live instance can read. */
	public List<String> unreadableCalls() {
		return all("#unreadable-calls tr:not(.empty)", "innerText");
	}

	/** Clicks the delete button of a method no live instance knows. */
	public void deleteUnknownMethod(String methodId) {
		this.browser.findElements(By.cssSelector("#unknown-methods tr:not(.empty)"))
			.stream()
			.filter((row) -> row.findElement(By.cssSelector("td")).getText().equals(methodId))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No unknown method " + methodId + ": " + unknownMethods()))
			.findElement(By.cssSelector("button"))
			.click();
	}

	/** The rows of the instances' table. */
	public List<String> instances() {
		return all("#instances tr:not(.empty)", "innerText");
	}

	/** The next timeouts the timers tab lists, one per row, empty rows left out. */
	public List<String> nextTimeouts() {
		return all("#next-timeouts tr", "innerText").stream().filter((row) -> !row.isBlank()).toList();
	}

	public int timeoutsOnTheRings() {
		return all("#wheel path.occupied", "dataset.timeouts").stream().mapToInt(Integer::parseInt).sum();
	}

	private List<String> all(String selector, String property) {
		return HeadlessChromium.all(this.browser, selector, property);
	}

	private <T> T script(String script, Object... arguments) {
		return HeadlessChromium.script(this.browser, script, arguments);
	}

	/**
	 * The elements wider than the window, which make a phone scroll sideways; none on a page that
	 * fits. (Wide tables scroll inside their own box instead.)
	 */
	public List<String> elementsWiderThanTheWindow() {
		return script("""
				const width = document.documentElement.clientWidth;
				const wider = Array.from(document.querySelectorAll('body *'))
					.filter((e) => e.getClientRects().length > 0 && !e.closest('.scroll, .wheel-levels'))
					.filter((e) => e.getBoundingClientRect().right > width + 1)
					.map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + e.className
						+ ' right=' + Math.round(e.getBoundingClientRect().right));
				const page = document.documentElement.scrollWidth;
				return page > width ? [...wider, `the page: ${page} px wide in a window of ${width}`] : wider;""");
	}

	public void scrollTo(String id) {
		script("document.getElementById(arguments[0]).scrollIntoView({ block: 'start' });", id);
	}

	public void windowSize(int width, int height) {
		this.browser.manage().window().setSize(new Dimension(width, height));
	}

	/**
	 * Saves what the console shows as {@code docs/images/<name>.png} for its page, only when the
	 * build asks for it ({@code -Dscreenshots=true}): a normal build leaves the tree as it was.
	 */
	public void screenshotForReadme(String name) throws IOException {
		if (Boolean.getBoolean("screenshots")) {
			Files.createDirectories(SCREENSHOTS);
			Path shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE).toPath();
			Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
		}
	}

	/** Keeps what the console showed last, for a human to look at: {@code target/<name>.png}. */
	public void screenshot(String name) throws IOException {
		Path shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE).toPath();
		Files.copy(shot, Path.of("target", name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

	@Override
	public void close() {
		this.browser.quit();
	}

}
