package io.github.wheeltimer.durable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.wheeltimer.durable.Cluster.Node;
import io.github.wheeltimer.durable.jdbc.DurableDialect;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import tools.jackson.databind.JsonNode;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Durable calls across several instances, each a JVM of its own ({@link ClusterInstance}, driven by
 * {@link Cluster}), on one real database (each subclass runs them on one); every durable method records its runs in the table
 * {@code cluster_run}, in its own transaction, with no key that would refuse a second run. Each
 * test has a database of its own, and checks strictly that no call runs before its due time and
 * none twice (except, counted, a call that was running on an instance that died), and, with
 * generous slack, that none runs much late:
 * <ul>
 * <li>sharing: 5,000 calls made through three instances over 20 s run exactly once each, spread
 * over the three;
 * <li>crash: an instance killed with SIGKILL while it holds claimed calls and runs slow ones; the
 * others run them after its lease, and run again only the calls that were running;
 * <li>false death: an instance frozen (SIGSTOP) past its lease, and one cut from the database for
 * longer than its lease (and back before its calls fall due): the others take its calls over and run
 * them, it never does, though it still holds them on its wheel, and it rejoins without a restart;
 * <li>database outage: the server stopped for longer than the lease: nothing is lost, calls made
 * meanwhile fail in their caller's thread, health is down, and every instance recovers by itself
 * without taking its live peers for dead;
 * <li>rolling deploy: calls of a method only a new instance knows run there only, and wait
 * (reported) while no running instance knows the method;
 * <li>cancel and replace from other instances, racing the due time: each call ends one way only;
 * <li>graceful stop: an instance's unstarted calls go to the others at once, and fire on time.
 * </ul>
 * The settings keep the heartbeat interval well below the lease, so that CPU starvation on a small
 * machine (three instances, PostgreSQL and the build on two cores) makes no instance look dead
 * where a test assumes none is.
 */
abstract class DurableCallsClusterTests {

	private static final String CALLS = "WHEEL_TIMER_CALL";

	private Cluster cluster;

	private RestartableDatabase restartable;

	private String testName;

	/** @return the URL of a new, empty database, with the user to connect as */
	abstract String newDatabase();

	/** @return a server of the test's own, that it may stop and start again */
	abstract RestartableDatabase restartable();

	/**
	 * Returns the URL an instance connects with, under which the database tells its sessions from
	 * the others'.
	 * @param url the database's URL
	 * @param name the instance's name
	 * @return the instance's URL
	 */
	abstract String instanceUrl(String url, String name);

	/** @return how many sessions the instance has open on the database, as the database says */
	abstract long sessions(Database db, String name);

	/** A failed test prints what each instance logged, and the commands and answers. */
	@RegisterExtension
	final TestExecutionExceptionHandler dumpOnFailure = (context, failure) -> {
		if (this.cluster != null) {
			System.out.println("Test " + context.getDisplayName() + " failed; the cluster's logs:");
			this.cluster.dump(System.out);
		}
		throw failure;
	};

	/** Each test's instances log to a directory named after it. */
	@BeforeEach
	void name(TestInfo test) {
		this.testName = test.getTestMethod().map((method) -> method.getName()).orElse("cluster");
	}

	@AfterEach
	void stopEverything() throws IOException {
		if (this.cluster != null) {
			this.cluster.close();
		}
		if (this.restartable != null) {
			this.restartable.close();
		}
	}

	@Test
	void threeInstancesShareFiveThousandCallsAndRunEachExactlyOnceNoneEarly() {
		Database db = new Database(newDatabase());
		Duration delay = Duration.ofSeconds(2);
		List<Node> nodes = startCluster(db, settings("1s", "250ms", "250ms", "3s", "cluster.far-delay=2s"), "a", "b",
				"c");
		// 5,000 calls due over about 20 s, made through all three instances, one every 12 ms on each.
		// Their delay is longer than the horizon: they wait as pending rows, for any instance's poll.
		Map<Node, CompletableFuture<String>> scheduling = new LinkedHashMap<>();
		int[] counts = { 1667, 1667, 1666 };
		for (int i = 0; i < nodes.size(); i++) {
			Node node = nodes.get(i);
			scheduling.put(node,
					node.send("schedule method=far prefix=" + node.name() + "- count=" + counts[i] + " pace=12"));
		}
		Set<String> made = new HashSet<>();
		scheduling.forEach((node, answer) -> made.addAll(accepted(node, answer, Duration.ofSeconds(90))));
		assertThat(made).hasSize(5000);

		List<Run> runs = awaitSettled(db, 5000, Duration.ofSeconds(60));
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> delay);
		Map<String, Long> split = perInstance(runs);
		System.out.println("Sharing: 5,000 calls ran on " + split + "; lateness " + latenessSummary(runs, delay));
		assertThat(split).as("runs per instance").containsOnlyKeys("a", "b", "c");
		assertThat(split.values()).allSatisfy((ran) -> assertThat(ran).isPositive());
	}

	@Test
	void afterASigkillTheOthersRunTheDeadInstancesCallsAfterItsLeaseAndRerunOnlyThoseThatWereRunning() {
		Database db = new Database(newDatabase());
		// A lease well above the heartbeat (250 ms): a loaded machine's stall of a live instance
		// must not look like a death, which would take over more calls than the kill left.
		Duration lease = Duration.ofSeconds(4);
		Duration poll = Duration.ofMillis(250);
		Duration nearDelay = Duration.ofMillis(800);
		Duration slowDelay = Duration.ofMillis(200);
		List<Node> nodes = startCluster(db, settings("1s", "250ms", "250ms", "4s", "cluster.near-delay=800ms",
				"cluster.slow-delay=200ms", "cluster.slow-sleep=60s"), "a", "b", "c");
		Node victim = nodes.get(2);
		// Three calls that are still running when it dies: their first attempt sleeps a minute.
		assertThat(accepted(victim, victim.send("schedule method=slow prefix=slow- count=3"), Duration.ofSeconds(20)))
			.hasSize(3);
		await("the slow calls running on " + victim).atMost(Duration.ofSeconds(15))
			.until(() -> db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE owner_id = ? AND state = 'RUNNING'",
					victim.instance()) == 3);
		// Calls due within the horizon, held on the victim's wheel from birth, made one every 10 ms
		// until it dies: at its death some have run there, some are claimed and waiting.
		victim.send("schedule method=near prefix=near- count=2000 pace=10");
		await("the victim running near calls and holding more").atMost(Duration.ofSeconds(20))
			.until(() -> db.count("SELECT COUNT(*) FROM cluster_run WHERE instance = 'c'") >= 30
					&& db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE owner_id = ? AND state = 'CLAIMED'",
							victim.instance()) >= 20);
		victim.kill();
		assertThat(victim.exitCode()).as("killed by SIGKILL").isEqualTo(137);
		// Its sessions end as the kernel closes its sockets; once they have, no statement it sent can
		// still commit.
		await("the victim's sessions gone").atMost(Duration.ofSeconds(5)).until(() -> sessions(db, "c") == 0);
		// What it held when it died, as the database says: nothing of it can change any more, and
		// the others take it over only once its lease has run out.
		long claimedAtDeath = db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE owner_id = ? AND state = 'CLAIMED'",
				victim.instance());
		Set<String> runningAtDeath = db.keys(
				"SELECT arguments FROM " + CALLS + " WHERE owner_id = ? AND state = 'RUNNING'", victim.instance());
		assertThat(claimedAtDeath).as("claimed calls held by the victim when killed").isPositive();
		assertThat(runningAtDeath).as("calls running on the victim when killed").contains("slow-0", "slow-1", "slow-2");

		List<Run> runs = awaitSettled(db, -1, Duration.ofSeconds(30));
		Map<String, List<Run>> byKey = byKey(runs);
		// The victim made its near calls in order: those accepted before it died are a prefix.
		int last = byKey.keySet().stream().filter((key) -> key.startsWith("near-"))
			.mapToInt((key) -> Integer.parseInt(key.substring(5))).max().orElseThrow();
		Set<String> made = new HashSet<>(Set.of("slow-0", "slow-1", "slow-2"));
		for (int i = 0; i <= last; i++) {
			made.add("near-" + i);
		}
		assertThat(byKey.keySet()).as("calls that ran").isEqualTo(made);
		// Each ran once (only one run commits: the killed one never did); those that were running
		// when the victim died ran again, as attempt 2, and no other call did.
		assertThat(byKey).allSatisfy((key, ran) -> {
			assertThat(ran).as("runs of %s", key).hasSize(1);
			assertThat(ran.get(0).attempt()).as("attempt of %s", key).isEqualTo(runningAtDeath.contains(key) ? 2 : 1);
		});
		assertNoneEarly(runs, (run) -> run.key().startsWith("slow-") ? slowDelay : nearDelay);
		List<Run> takenOver = runs.stream()
			.filter((run) -> run.key().startsWith("near-") && !run.instance().equals("c"))
			.toList();
		Duration worst = worstLateness(takenOver, nearDelay);
		Map<String, Long> counts = sumCounts(nodes.subList(0, 2));
		System.out.println("Crash: the victim held " + claimedAtDeath + " claimed and " + runningAtDeath.size()
				+ " running calls when killed; " + takenOver.size() + " of its calls ran on the survivors, the worst "
				+ worst.toMillis() + " ms late (lease " + lease.toMillis() + " ms + poll " + poll.toMillis() + " ms); "
				+ runningAtDeath.size() + " ran again (attempt 2) " + runningAtDeath + "; survivors' counts " + counts);
		assertThat(takenOver).isNotEmpty();
		assertThat(worst).as("worst lateness of the calls taken over")
			.isLessThanOrEqualTo(lease.plus(poll).plusSeconds(2));
		assertThat(counts.get("takenOver")).as("calls taken over").isEqualTo(claimedAtDeath + runningAtDeath.size());
		assertThat(counts.get("suspectedDuplicates")).as("suspected duplicates counted by the survivors")
			.isEqualTo(runningAtDeath.size());
	}

	@Test
	void anInstanceThoughtDeadNeverRunsTheCallsTakenOverFromItAndRejoinsWithoutARestart() {
		Database db = new Database(newDatabase());
		// Calls held from birth and due 8 s later: twice the lease, so that they are taken over
		// before they fall due. A 4 s lease, 16 heartbeats: a live instance starved for 2 s on a loaded
		// machine would otherwise have its calls taken over too.
		Duration nearDelay = Duration.ofSeconds(8);
		List<Node> nodes = startCluster(db, settings("10s", "250ms", "250ms", "4s", "cluster.near-delay=8s",
				"spring.datasource.hikari.connection-timeout=1000"), "a", "b", "c");
		Node a = nodes.get(0);
		Node b = nodes.get(1);
		Node c = nodes.get(2);

		// A long pause (SIGSTOP of the whole JVM, as a stop-the-world collection looks): the others
		// take its calls over once its lease has run out, and run them when they fall due.
		accepted(c, c.send("schedule method=near prefix=p- count=100"), Duration.ofSeconds(20));
		Instant pausedAt = Instant.now();
		c.pause();
		await("c thought dead").atMost(Duration.ofSeconds(15)).until(() -> !alive(a, "c"));
		await("c's calls run by the others").atMost(Duration.ofSeconds(20))
			.until(() -> db.count("SELECT COUNT(*) FROM cluster_run WHERE call_key LIKE 'p-%'") >= 100);
		c.resume();
		// Back, its wheel fires every call it held, overdue: the start gate refuses them all.
		await("c rejoined").atMost(Duration.ofSeconds(15))
			.until(() -> alive(a, "c") && c.json("held").asInt() == 0);
		assertThat(c.health()).isEqualTo("UP");
		System.out.println("False death (paused): c's counts after it resumed " + c.counts());
		CompletableFuture<String> afterPause = c.send("schedule method=near prefix=p2- count=20");

		// A network cut between b and the database: its health is down meanwhile, and a call made on
		// it fails in its caller's thread. The others take its calls over; it is back before they fall
		// due, and still holds them on its wheel: its start gate must refuse them.
		accepted(b, b.send("schedule method=near prefix=q- count=100"), Duration.ofSeconds(20));
		Instant cutAt = Instant.now();
		b.call("cut", Duration.ofSeconds(10));
		await("b's health down").atMost(Duration.ofSeconds(10)).until(() -> b.health().equals("DOWN"));
		JsonNode refused = json(b.call("schedule method=near prefix=qx- count=1", Duration.ofSeconds(20)));
		assertThat(refused.get("accepted").isEmpty()).isTrue();
		assertThat(refused.get("failures").get(0).get("message").asString()).contains("was not accepted");
		await("b thought dead, and its calls claimed by the others").atMost(Duration.ofSeconds(15))
			.until(() -> !alive(a, "b")
					&& db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE owner_id = ?", b.instance()) == 0
					&& db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE call_key LIKE 'q-%' AND state = 'CLAIMED'")
							+ db.count("SELECT COUNT(*) FROM cluster_run WHERE call_key LIKE 'q-%'") == 100);
		Instant restoredAt = Instant.now();
		b.call("restore", Duration.ofSeconds(10));
		await("b rejoined").atMost(Duration.ofSeconds(15))
			.until(() -> alive(a, "b") && b.health().equals("UP") && b.json("held").asInt() == 0);
		System.out.println("False death (cut): b back " + Duration.between(restoredAt, cutAt.plus(nearDelay)).toMillis()
				+ " ms before its calls fell due; its counts then " + b.counts());
		CompletableFuture<String> afterCut = b.send("schedule method=near prefix=q2- count=20");
		accepted(c, afterPause, Duration.ofSeconds(20));
		accepted(b, afterCut, Duration.ofSeconds(20));

		List<Run> runs = awaitSettled(db, 240, Duration.ofSeconds(30));
		Set<String> made = new HashSet<>();
		for (int i = 0; i < 100; i++) {
			made.add("p-" + i);
			made.add("q-" + i);
		}
		for (int i = 0; i < 20; i++) {
			made.add("p2-" + i);
			made.add("q2-" + i);
		}
		// Only claimed, never started, when their holder was thought dead: each ran exactly once.
		assertRanExactlyOnce(runs, made);
		assertThat(runs).allSatisfy((run) -> assertThat(run.attempt()).as("attempt of %s", run.key()).isEqualTo(1));
		assertNoneEarly(runs, (run) -> nearDelay);
		// Taken over, they never ran on their first holder once it was frozen or cut.
		assertThat(runs).filteredOn((run) -> run.key().startsWith("p-") && run.instance().equals("c"))
			.allSatisfy((run) -> assertThat(run.ranAt()).isBefore(pausedAt));
		assertThat(runs).filteredOn((run) -> run.key().startsWith("q-") && run.instance().equals("b"))
			.allSatisfy((run) -> assertThat(run.ranAt()).isBefore(cutAt));
		// Back without a restart, each runs the calls it makes again.
		assertThat(runs).filteredOn((run) -> run.key().startsWith("p2-")).extracting(Run::instance).containsOnly("c");
		assertThat(runs).filteredOn((run) -> run.key().startsWith("q2-")).extracting(Run::instance).containsOnly("b");
		assertThat(List.of(b, c)).allSatisfy((node) -> assertThat(node.isAlive()).isTrue());
	}

	@Test
	void aDatabaseOutageLongerThanTheLeaseLosesNothingAndEveryInstanceRecoversByItself() throws IOException {
		this.restartable = restartable();
		Database db = new Database(this.restartable.newDatabase("outage"));
		Duration farDelay = Duration.ofSeconds(2);
		Duration nearDelay = Duration.ofMillis(900);
		Duration outage = Duration.ofSeconds(8);
		// A lease above HikariCP's reconnection back-off, which grows to 5 s while the database is
		// away: the instances' pools find it back up to 5 s apart, and one that came back first must
		// not take the others for dead meanwhile.
		List<Node> nodes = startCluster(db, settings("1s", "250ms", "250ms", "7s", "cluster.near-delay=900ms",
				"spring.datasource.hikari.connection-timeout=1000"), "a", "b", "c");
		Set<String> made = new HashSet<>();
		// Far calls due while the database is down, some claimed, most still pending rows...
		Map<Node, CompletableFuture<String>> far = new LinkedHashMap<>();
		nodes.forEach((node) -> far.put(node,
				node.send("schedule method=far prefix=o-" + node.name() + "- count=60 pace=25")));
		far.forEach((node, answer) -> made.addAll(accepted(node, answer, Duration.ofSeconds(30))));
		// ...and near calls, each held by the instance that made it, due during the outage too.
		nodes.forEach((node) -> made.addAll(accepted(node, node.send("schedule method=near prefix=on-" + node.name()
				+ "- count=30"), Duration.ofSeconds(20))));
		this.restartable.stop();
		// Once the server has gone: a call due while it was stopping may have run, rightly.
		Instant stoppedAt = Instant.now();
		// Calls made during the outage, and on after it, one every 250 ms on each instance.
		Map<Node, CompletableFuture<String>> during = new LinkedHashMap<>();
		nodes.forEach((node) -> during.put(node,
				node.send("schedule method=far prefix=x-" + node.name() + "- count=30 pace=250")));
		await("every instance's health down").atMost(Duration.ofSeconds(10))
			.until(() -> nodes.stream().allMatch((node) -> node.health().equals("DOWN")));
		holdUntil(stoppedAt.plus(outage), "the outage lasts longer than the lease");
		Instant restartedAt = Instant.now();
		this.restartable.start();

		List<JsonNode> failures = new ArrayList<>();
		Map<String, Integer> acceptedAfter = new TreeMap<>();
		during.forEach((node, answer) -> {
			JsonNode scheduled = json(node.await(answer, Duration.ofSeconds(60), "schedule x-"));
			List<String> accepted = texts(scheduled.get("accepted"));
			made.addAll(accepted);
			acceptedAfter.put(node.name(), accepted.size());
			List<JsonNode> refused = new ArrayList<>(scheduled.get("failures").values());
			assertThat(refused).as("calls refused by %s during the outage", node.name()).isNotEmpty();
			failures.addAll(refused);
		});
		await("every instance's health up again").atMost(Duration.ofSeconds(20))
			.until(() -> nodes.stream().allMatch((node) -> node.health().equals("UP")));
		List<Run> runs = awaitSettled(db, made.size(), Duration.ofSeconds(40));
		Set<String> refusedKeys = failures.stream()
			.map((failure) -> failure.get("key").asString())
			.collect(Collectors.toSet());
		long movedNear = runs.stream()
			.filter((run) -> run.key().startsWith("on-") && !run.key().startsWith("on-" + run.instance() + "-"))
			.count();
		System.out.println("Outage: " + made.size() + " calls made, " + failures.size() + " refused during the outage "
				+ refusedKeys + "; accepted from the outage stream: " + acceptedAfter + "; lateness of the far calls "
				+ latenessSummary(runs.stream().filter((run) -> !run.key().startsWith("on-")).toList(), farDelay)
				+ "; near calls that ran on another instance than their maker: " + movedNear + "; counts "
				+ sumCounts(nodes) + "; a refusal: " + failures.get(0));
		// Each refusal said why, in the caller's thread; each accepted call ran, once; none early.
		assertThat(failures).allSatisfy((failure) -> {
			assertThat(failure.get("dataAccess").asBoolean()).as("a DataAccessException: %s", failure).isTrue();
			assertThat(failure.get("message").asString()).contains("was not accepted").contains("far");
		});
		assertThat(acceptedAfter.values()).as("calls accepted once the database was back").allSatisfy(
				(accepted) -> assertThat(accepted).isPositive());
		assertRanExactlyOnce(runs, made);
		assertThat(byKey(runs).keySet()).as("refused calls that ran").doesNotContainAnyElementsOf(refusedKeys);
		assertNoneEarly(runs, (run) -> run.key().startsWith("on-") ? nearDelay : farDelay);
		List<Run> dueDuringOutage = runs.stream().filter((run) -> {
			Instant due = run.calledAt().plus(run.key().startsWith("on-") ? nearDelay : farDelay);
			return due.isAfter(stoppedAt) && due.isBefore(restartedAt);
		}).toList();
		assertThat(dueDuringOutage).isNotEmpty()
			.allSatisfy((run) -> assertThat(run.ranAt()).isAfterOrEqualTo(restartedAt));
		// No instance took its live peers for dead when the database came back (every lease had run
		// out by the database's clock): none took any call over. (A held call whose start gate could
		// not reach the database is handed back once it answers, and may run elsewhere.)
		assertThat(sumCounts(nodes).get("takenOver")).as("calls taken over").isZero();
		assertThat(nodes).allSatisfy((node) -> assertThat(node.isAlive()).isTrue());
	}

	@Test
	void callsOfAMethodOnlyANewInstanceKnowsRunThereAndWaitReportedWhileNoRunningInstanceKnowsIt() {
		Database db = new Database(newDatabase());
		// The new method's calls are due in 5 s: c's stop, after it wrote the last ones, begins before
		// its poll claims them.
		Duration farDelay = Duration.ofSeconds(2);
		Duration extraDelay = Duration.ofSeconds(5);
		this.cluster = new Cluster(this.testName, (name) -> instanceUrl(db.url, name),
				settings("1s", "250ms", "250ms", "3s", "cluster.far-delay=2s", "cluster.extra-delay=5s"));
		List<Node> old = List.of(this.cluster.launch("a"), this.cluster.launch("b"));
		Node c = this.cluster.launch("c", "cluster.extra.enabled=true");
		old.forEach(Node::awaitReady);
		c.awaitReady();
		Node a = old.get(0);

		// The new code's calls go to its instance only, while all three share the others.
		CompletableFuture<String> extra = c.send("schedule method=extra prefix=e- count=100 pace=10");
		CompletableFuture<String> far = a.send("schedule method=far prefix=f- count=100 pace=10");
		Set<String> made = new HashSet<>(accepted(c, extra, Duration.ofSeconds(20)));
		made.addAll(accepted(a, far, Duration.ofSeconds(20)));
		JsonNode instances = a.report().get("instances");
		assertThat(instance(instances, "c").toString()).contains("cluster.extra");
		assertThat(instance(instances, "a").toString()).doesNotContain("cluster.extra");
		List<Run> runs = awaitSettled(db, 200, Duration.ofSeconds(20));
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> run.key().startsWith("f-") ? farDelay : extraDelay);
		assertThat(runs).filteredOn((run) -> run.key().startsWith("e-")).extracting(Run::instance).containsOnly("c");

		// The new instance goes away, leaving calls of its method: nobody running knows them now.
		Set<String> waiting = new HashSet<>(
				accepted(c, c.send("schedule method=extra prefix=w- count=50"), Duration.ofSeconds(20)));
		c.stop(Duration.ofSeconds(30));
		await("the waiting calls reported").atMost(Duration.ofSeconds(10))
			.until(() -> unknownMethods(a).getOrDefault("cluster.extra", 0L) == 50);
		assertThat(unknownMethods(old.get(1))).containsEntry("cluster.extra", 50L);
		// They stay pending, untouched and not failed, well past their due time.
		Instant lastDue = db.instant("SELECT MAX(due_at) FROM " + CALLS + " WHERE method_id = 'cluster.extra'");
		Duration watch = Duration.between(Instant.now(), lastDue.plusSeconds(2));
		await("the waiting calls left alone").during(watch).atMost(watch.plusSeconds(10))
			.until(() -> db.count("SELECT COUNT(*) FROM " + CALLS
					+ " WHERE method_id = 'cluster.extra' AND state = 'PENDING' AND owner_id IS NULL") == 50
					&& db.count("SELECT COUNT(*) FROM " + CALLS) == 50
					&& db.count("SELECT COUNT(*) FROM cluster_run WHERE call_key LIKE 'w-%'") == 0);
		assertThat(sumCounts(old).get("failed")).isZero();

		// An instance that knows the method comes up, and runs them, once each, late but not early.
		this.cluster.start("d", "cluster.extra.enabled=true");
		made.addAll(waiting);
		runs = awaitSettled(db, 250, Duration.ofSeconds(30));
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> run.key().startsWith("f-") ? farDelay : extraDelay);
		assertThat(runs).filteredOn((run) -> run.key().startsWith("w-")).extracting(Run::instance).containsOnly("d");
		assertThat(unknownMethods(a)).isEmpty();
		System.out.println("Rolling deploy: runs per instance " + new TreeMap<>(runs.stream()
			.collect(Collectors.groupingBy((run) -> run.key().replaceAll("[0-9]+$", "") + "@" + run.instance(),
					Collectors.counting()))));
	}

	/**
	 * A deploy that changes a durable method's parameter (version 2 adds a property), each version
	 * in JVMs of its own: while both run, each writes and runs its own calls, and none fails; the
	 * older alone (a rollback) leaves the newer one's calls waiting, reported, untouched past their
	 * due time; the newer one back runs them, once each, whole.
	 */
	@Test
	void aDeployThatChangesAParameterFailsNoCallAndLosesNoneThroughARollback() {
		Database db = new Database(newDatabase());
		// Due in 5 s: b's stop, after it wrote the last calls, begins before its poll claims them. A 6 s
		// lease: a stall of either version is not a death, whose take-over would run the other's calls.
		Duration delay = Duration.ofSeconds(5);
		this.cluster = new Cluster(this.testName, (name) -> instanceUrl(db.url, name),
				settings("1s", "250ms", "250ms", "6s", "cluster.far-delay=5s"));
		Node a = this.cluster.launch("a", "cluster.versioned=1");
		Node b = this.cluster.launch("b", "cluster.versioned=2");
		a.awaitReady();
		b.awaitReady();

		// Both up, each writing: each version's calls run on it, whole.
		CompletableFuture<String> older = a.send("schedule method=versioned prefix=o- count=60 pace=10");
		CompletableFuture<String> newer = b.send("schedule method=versioned prefix=n- count=60 pace=10");
		Set<String> made = new HashSet<>(accepted(a, older, Duration.ofSeconds(20)));
		made.addAll(accepted(b, newer, Duration.ofSeconds(20)));
		List<Run> runs = awaitSettled(db, 120, Duration.ofSeconds(30));
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> delay);
		assertThat(runs).filteredOn((run) -> run.key().startsWith("o-")).extracting(Run::version).containsOnly(1);
		assertThat(runs).filteredOn((run) -> run.key().startsWith("n-")).extracting(Run::version).containsOnly(2);

		// The rollback: the newer version goes, leaving calls the older cannot read.
		Set<String> waiting = new HashSet<>(
				accepted(b, b.send("schedule method=versioned prefix=w- count=40"), Duration.ofSeconds(20)));
		b.stop(Duration.ofSeconds(30));
		await("the waiting calls reported").atMost(Duration.ofSeconds(15))
			.until(() -> unreadable(a) == 40);
		Instant lastDue = db.instant("SELECT MAX(due_at) FROM " + CALLS);
		Duration watch = Duration.between(Instant.now(), lastDue.plusSeconds(2));
		await("the waiting calls left alone").during(watch).atMost(watch.plusSeconds(10))
			.until(() -> db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE state = 'PENDING' AND owner_id IS NULL") == 40
					&& db.count("SELECT COUNT(*) FROM " + CALLS) == 40
					&& db.count("SELECT COUNT(*) FROM cluster_run WHERE call_key LIKE 'w-%'") == 0);
		assertThat(a.counts().get("failed")).isZero();
		assertThat(a.healthDetails().get("waitingUnreadable").asLong()).isEqualTo(40);

		// The deploy again: the newer version runs them, once each, with what they were written with.
		this.cluster.start("c", "cluster.versioned=2");
		made.addAll(waiting);
		runs = awaitSettled(db, 160, Duration.ofSeconds(30));
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> delay);
		assertThat(runs).filteredOn((run) -> run.key().startsWith("w-")).allSatisfy((run) -> {
			assertThat(run.instance()).isEqualTo("c");
			assertThat(run.version()).isEqualTo(2);
		});
		assertThat(sumCounts(List.of(a)).get("failed")).isZero();
		await("nothing reported any more").atMost(Duration.ofSeconds(10)).until(() -> unreadable(a) == 0);
	}

	/** @return the pending calls no live instance can read, as the node's report counts them */
	private static long unreadable(Node node) {
		return node.report().get("unreadable").valueStream().mapToLong((calls) -> calls.get("count").asLong()).sum();
	}

	@Test
	void cancelsAndReplacesFromOtherInstancesRacingTheDueTimeEndEachCallOneWayOnly() {
		Database db = new Database(newDatabase());
		Duration delay = Duration.ofSeconds(2);
		List<Node> nodes = startCluster(db, settings("1s", "250ms", "250ms", "3s", "cluster.far-delay=2s"), "a", "b",
				"c");
		Node a = nodes.get(0);
		Node b = nodes.get(1);
		Node c = nodes.get(2);
		// 300 calls made on a, one every 10 ms; b and c each try to cancel every one of them, on four
		// threads, from 100 ms before to 600 ms after its due time: on a loaded machine, where the
		// calls may start a few hundred milliseconds late, some cancels still come too late.
		String pacing = " prefix=k- count=300 pace=10 offset=" + delay.toMillis() + " jitter=-100..600 threads=4";
		CompletableFuture<String> making = a.send("schedule method=far prefix=k- count=300 pace=10");
		CompletableFuture<String> cancellingOnB = b.send("cancel methodId=cluster.far" + pacing + " seed=1");
		CompletableFuture<String> cancellingOnC = c.send("cancel methodId=cluster.far" + pacing + " seed=2");
		Set<String> made = new HashSet<>(accepted(a, making, Duration.ofSeconds(30)));
		assertThat(made).hasSize(300);
		List<String> cancelled = new ArrayList<>(cancelled(b, cancellingOnB));
		cancelled.addAll(cancelled(c, cancellingOnC));
		List<Run> runs = awaitSettled(db, -1, Duration.ofSeconds(20));
		Map<String, List<Run>> byKey = byKey(runs);
		Map<String, Long> counts = sumCounts(nodes);
		System.out.println("Cancel: of 300 calls " + runs.size() + " ran and " + cancelled.size()
				+ " were cancelled; counts " + counts);
		// Each call ran, or one of its cancels returned true: exactly one of these.
		assertThat(cancelled).doesNotHaveDuplicates();
		assertThat(made).allSatisfy((key) -> assertThat(byKey.getOrDefault(key, List.of()).size()
				+ (cancelled.contains(key) ? 1 : 0)).as("runs and successful cancels of %s", key).isEqualTo(1));
		assertNoneEarly(runs, (run) -> delay);
		// The race was run: some cancels came in time, some too late.
		assertThat(runs).isNotEmpty();
		assertThat(cancelled).isNotEmpty();
		assertThat(counts.get("ran") + cancelled.size()).as("runs counted + successful cancels").isEqualTo(300);
		assertThat(counts.get("cancelled")).as("cancels counted").isEqualTo(cancelled.size());

		// 300 more calls made on a, each replaced by b or c with a new version around its due time.
		// The originals keep their pace on four threads, as the replacements do: on one, a loaded
		// machine's slow writes add up, and a replacement that came before its original would be
		// replaced by it (beside three other test classes and three busy loops, one thread wrote them
		// 38 ms apart, and r-211's original, written after its replacement, replaced it).
		String replacing = " prefix=r- count=300 step=2 pace=10 offset=" + delay.toMillis()
				+ " jitter=-150..100 threads=4 version=2";
		CompletableFuture<String> originals = a.send("schedule method=far prefix=r- count=300 pace=10 threads=4");
		CompletableFuture<String> replacedOnB = b.send("schedule method=far from=0" + replacing + " seed=3");
		CompletableFuture<String> replacedOnC = c.send("schedule method=far from=1" + replacing + " seed=4");
		assertThat(accepted(a, originals, Duration.ofSeconds(30))).hasSize(300);
		assertThat(accepted(b, replacedOnB, Duration.ofSeconds(30))).hasSize(150);
		assertThat(accepted(c, replacedOnC, Duration.ofSeconds(30))).hasSize(150);
		awaitSettled(db, -1, Duration.ofSeconds(20));
		List<Run> replaced = db.runs().stream().filter((run) -> run.key().startsWith("r-")).toList();
		Map<String, List<Run>> byVersion = replaced.stream()
			.collect(Collectors.groupingBy((run) -> run.key() + " v" + run.version()));
		long oldRan = replaced.stream().filter((run) -> run.version() == 1).count();
		System.out.println("Replace: of 300 calls " + oldRan + " ran before their replacement, "
				+ (300 - oldRan) + " were replaced before they started");
		for (int i = 0; i < 300; i++) {
			assertThat(byVersion.getOrDefault("r-" + i + " v2", List.of())).as("runs of r-%d version 2", i).hasSize(1);
			assertThat(byVersion.getOrDefault("r-" + i + " v1", List.of()).size()).as("runs of r-%d version 1", i)
				.isLessThanOrEqualTo(1);
		}
		assertNoneEarly(replaced, (run) -> delay);
		assertThat(oldRan).as("old versions that ran before their replacement").isBetween(1L, 299L);
		assertThat(sumCounts(nodes).get("ran") - counts.get("ran")).as("runs counted").isEqualTo(replaced.size());
	}

	@Test
	void aGracefulStopHandsTheUnstartedCallsToTheOthersAtOnceAndTheyFireOnTheirTick() {
		Database db = new Database(newDatabase());
		Duration delay = Duration.ofMillis(4500);
		Duration poll = Duration.ofMillis(2500);
		// A call that waited for the lease (12 s) would be far later, and one that waited for a poll
		// of a or b up to 2.5 s (1.25 s at their best phases); loaded CI machines have run calls
		// close to a second late with neither.
		Duration slack = Duration.ofMillis(1500);
		// How far from the kept interval's edge a call must fall due to be asserted on: the stop's
		// own "now" comes after closeStarted, by as much as a loaded machine takes to get there.
		Duration margin = Duration.ofMillis(600);
		List<Node> nodes = startCluster(db, settings("5s", "2500ms", "1s", "12s", "cluster.near-delay=4500ms",
				"logging.level.io.github.wheeltimer.durable.run=DEBUG"), "a", "b", "c");
		Node c = nodes.get(2);
		// Held on c's wheel from birth, made over 4 s and due 4.5 s later: at the stop, those made
		// first are due within a poll interval, those made last after it.
		Set<String> made = new HashSet<>(accepted(c, c.send("schedule method=near prefix=g- count=400 pace=10"),
				Duration.ofSeconds(30)));
		assertThat(made).hasSize(400);
		// A call c gave back before its stop (its gate failed, say) runs elsewhere, and is not the stop's doing.
		long handedBackBeforeStop = c.counts().getOrDefault("handedBack", 0L);
		JsonNode stopped = c.stop(Duration.ofSeconds(30));
		long ownedByC = db.count("SELECT COUNT(*) FROM " + CALLS + " WHERE owner_id = ?", c.instance());
		Instant closeStarted = Instant.parse(stopped.get("closeStartedAt").asString());
		Instant closeEnded = Instant.parse(stopped.get("closeEndedAt").asString());

		List<Run> runs = awaitSettled(db, 400, Duration.ofSeconds(20));
		Map<String, Long> split = perInstance(runs);
		Duration worst = worstLateness(runs, delay);
		System.out.println("Graceful stop: c's close took " + Duration.between(closeStarted, closeEnded).toMillis()
				+ " ms, its counts then " + stopped.get("counts") + "; runs per instance " + split + "; worst lateness "
				+ worst.toMillis() + " ms; " + latenessSummary(runs, delay));
		// Once its close returned, c owned nothing: no lease to wait for.
		assertThat(ownedByC).as("calls still owned by c after its close").isZero();
		assertRanExactlyOnce(runs, made);
		assertNoneEarly(runs, (run) -> delay);
		assertThat(worst).as("worst lateness").isLessThanOrEqualTo(slack);
		// c ran those due within a poll interval of its stop; the others ran the rest.
		assertThat(runs).filteredOn((run) -> run.instance().equals("c"))
			.allSatisfy((run) -> assertThat(run.ranAt()).isBeforeOrEqualTo(closeEnded));
		Instant keptUntil = closeStarted.plus(poll);
		// Should a call go to the wrong side, CI shows little more than this description (read from
		// the logs only then): when the stop began, what c counted, and what the instances logged
		// about calls going back.
		Supplier<String> why = () -> "c's close " + closeStarted + " to " + closeEnded + ", keeping calls due until "
				+ keptUntil + "; c's counts " + stopped.get("counts") + ", of them handed back before the stop "
				+ handedBackBeforeStop + "; runs per instance " + split + "; the instances' log:\n"
				+ nodes.stream()
					.flatMap((node) -> node
						.logLines(" WARN ", " ERROR ", "handed back to the database", "cannot start",
								" ms after its due time", "Took over")
						.stream()
						.map((line) -> node.name() + ": " + line))
					.collect(Collectors.joining("\n"));
		assertThat(runs).filteredOn((run) -> run.calledAt().plus(delay).isAfter(keptUntil.plus(margin)))
			.as(why)
			.isNotEmpty()
			.allSatisfy((run) -> assertThat(run.instance()).isIn("a", "b"));
		List<Run> kept = runs.stream()
			.filter((run) -> run.calledAt().plus(delay).isBefore(keptUntil.minus(margin)))
			.toList();
		assertThat(kept).as(why).isNotEmpty();
		assertThat(kept).filteredOn((run) -> !run.instance().equals("c"))
			.as(() -> "calls due within the kept interval that ran elsewhere, at most those c handed back before its"
					+ " stop: " + why.get())
			.hasSizeLessThanOrEqualTo((int) handedBackBeforeStop);
	}

	// ---------------------------------------------------------------------------------------------

	/** The properties of every instance of a test, plus {@code more}. */
	private static List<String> settings(String horizon, String pollInterval, String heartbeatInterval, String lease,
			String... more) {
		List<String> settings = new ArrayList<>(List.of("spring.datasource.hikari.maximum-pool-size=10",
				"wheel-timer.tick-duration=10ms", "wheel-timer.shutdown.await-termination=5s",
				"wheel-timer.durable.jdbc.initialize-schema=always", "wheel-timer.durable.horizon=" + horizon,
				"wheel-timer.durable.poll-interval=" + pollInterval,
				"wheel-timer.durable.heartbeat-interval=" + heartbeatInterval, "wheel-timer.durable.lease=" + lease));
		settings.addAll(List.of(more));
		return settings;
	}

	private List<Node> startCluster(Database db, List<String> settings, String... names) {
		this.cluster = new Cluster(this.testName, (name) -> instanceUrl(db.url, name), settings);
		return this.cluster.start(List.of(names));
	}

	/** Waits for a schedule command's answer and returns the keys accepted; there must be no failure. */
	private static List<String> accepted(Node node, CompletableFuture<String> answer, Duration timeout) {
		JsonNode scheduled = json(node.await(answer, timeout, "schedule"));
		assertThat(scheduled.get("failures").values()).as("calls %s refused", node.name()).isEmpty();
		return texts(scheduled.get("accepted"));
	}

	private static List<String> cancelled(Node node, CompletableFuture<String> answer) {
		JsonNode cancels = json(node.await(answer, Duration.ofSeconds(30), "cancel"));
		assertThat(texts(cancels.get("errors"))).as("cancels that failed on %s", node.name()).isEmpty();
		return texts(cancels.get("cancelled"));
	}

	private static JsonNode json(String text) {
		return Cluster.json.readTree(text);
	}

	private static List<String> texts(JsonNode array) {
		return array.valueStream().map(JsonNode::asString).toList();
	}

	/** @return whether {@code observer}'s report says the instance named so is alive */
	private static boolean alive(Node observer, String name) {
		JsonNode instance = instance(observer.report().get("instances"), name);
		return instance != null && instance.get("alive").asBoolean();
	}

	private static JsonNode instance(JsonNode instances, String name) {
		return instances.valueStream().filter((instance) -> instance.get("name").asString().equals(name)).findFirst()
			.orElse(null);
	}

	/** @return the pending calls of methods no live instance knows, per method id, as {@code node} reports them */
	private static Map<String, Long> unknownMethods(Node node) {
		return node.report().get("unknownMethods").valueStream()
			.collect(Collectors.toMap((unknown) -> unknown.get("name").asString(),
					(unknown) -> unknown.get("count").asLong()));
	}

	private static Map<String, Long> sumCounts(Collection<Node> nodes) {
		Map<String, Long> sum = new TreeMap<>();
		nodes.stream()
			.filter(Node::isAlive)
			.forEach((node) -> node.counts().forEach((name, value) -> sum.merge(name, value, Long::sum)));
		return sum;
	}

	/**
	 * Waits until no call is left in the database (none pending, claimed, running, nor failed) and
	 * {@code expected} runs are recorded ({@code -1}: any number), then a second more in which
	 * nothing changes, so that a late second run would show.
	 * @return the runs
	 */
	private static List<Run> awaitSettled(Database db, long expected, Duration timeout) {
		try {
			await("calls settled" + ((expected >= 0) ? ", " + expected + " runs" : "")).atMost(timeout)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> db.count("SELECT COUNT(*) FROM " + CALLS) == 0
						&& (expected < 0 || db.count("SELECT COUNT(*) FROM cluster_run") >= expected));
		}
		catch (ConditionTimeoutException ex) {
			System.out.println("Calls left when the wait ended: " + db.rows());
			throw ex;
		}
		long runs = db.count("SELECT COUNT(*) FROM cluster_run");
		await("nothing more runs").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
			.until(() -> db.count("SELECT COUNT(*) FROM cluster_run") == runs
					&& db.count("SELECT COUNT(*) FROM " + CALLS) == 0);
		return db.runs();
	}

	private static Map<String, Long> perInstance(List<Run> runs) {
		return runs.stream().collect(Collectors.groupingBy(Run::instance, TreeMap::new, Collectors.counting()));
	}

	private static Map<String, List<Run>> byKey(List<Run> runs) {
		return runs.stream().collect(Collectors.groupingBy(Run::key, TreeMap::new, Collectors.toList()));
	}

	private static void assertRanExactlyOnce(List<Run> runs, Set<String> made) {
		Map<String, List<Run>> byKey = byKey(runs);
		assertThat(byKey.entrySet()).as("calls that ran more than once")
			.filteredOn((entry) -> entry.getValue().size() > 1)
			.isEmpty();
		assertThat(byKey.keySet()).as("calls that ran").containsExactlyInAnyOrderElementsOf(made);
	}

	/** Strict: a call never runs before the time it was made plus its delay. */
	private static void assertNoneEarly(List<Run> runs, Function<Run, Duration> delay) {
		assertThat(runs).as("calls that ran early")
			.filteredOn((run) -> run.ranAt().isBefore(run.calledAt().plus(delay.apply(run))))
			.isEmpty();
	}

	private static Duration worstLateness(List<Run> runs, Duration delay) {
		return runs.stream().map((run) -> run.lateness(delay)).max(Duration::compareTo).orElse(Duration.ZERO);
	}

	private static String latenessSummary(List<Run> runs, Duration delay) {
		List<Long> millis = runs.stream().map((run) -> run.lateness(delay).toMillis()).sorted().toList();
		if (millis.isEmpty()) {
			return "(no runs)";
		}
		return "p50 " + millis.get(millis.size() / 2) + " ms, p99 " + millis.get(millis.size() * 99 / 100) + " ms, max "
				+ millis.get(millis.size() - 1) + " ms";
	}

	/** Lets a scenario's time pass (an outage lasting so long); nothing is asserted after it. */
	private static void holdUntil(Instant until, String why) {
		long millis = Duration.between(Instant.now(), until).toMillis();
		if (millis > 0) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while " + why, ex);
			}
		}
	}

	/** A run of a durable method, as recorded in {@code cluster_run}. */
	record Run(String key, int version, String instance, int attempt, Instant calledAt, Instant ranAt) {

		Duration lateness(Duration delay) {
			return Duration.between(this.calledAt.plus(delay), this.ranAt);
		}

	}

	/**
	 * The test's own view of a database: a connection per statement, so that it works across a
	 * restart of the server. The durable calls' tables are left to the instances, which all start
	 * at once with {@code initialize-schema=always}, as replicas of a deploy do.
	 */
	static final class Database {

		private final String url;

		private final DurableDialect dialect;

		private final JdbcTemplate jdbc;

		Database(String url) {
			this.url = url;
			this.dialect = TestDatabases.dialect(url);
			this.jdbc = new JdbcTemplate(TestDatabases.dataSource(url));
			ClusterInstance.createRunTable(this.jdbc);
		}

		/** Counts, binding ids as the database keeps them. */
		long count(String sql, Object... arguments) {
			Object[] bound = Arrays.stream(arguments)
				.map((argument) -> (argument instanceof UUID id) ? this.dialect.id(id) : argument)
				.toArray();
			Long count = this.jdbc.queryForObject(sql, Long.class, bound);
			return (count != null) ? count : 0;
		}

		Instant instant(String sql) {
			return this.jdbc.queryForObject(sql, (rs, n) -> this.dialect.instant(rs, 1));
		}

		/** @return the keys of the calls the query selects the {@code arguments} of */
		Set<String> keys(String sql, UUID owner) {
			return this.jdbc.queryForList(sql, String.class, this.dialect.id(owner))
				.stream()
				.map((arguments) -> Cluster.json.readTree(arguments).get(0).asString())
				.collect(Collectors.toSet());
		}

		/** @return every call left, for a failure's report */
		List<Map<String, Object>> rows() {
			List<Map<String, Object>> rows = this.jdbc.queryForList("SELECT call_key, started_key, state, owner_id,"
					+ " due_at, attempts, failures, last_error FROM " + CALLS + " ORDER BY due_at");
			// MariaDB's driver reads the binary-collated keys, and the ids, as bytes.
			rows.forEach((row) -> row.replaceAll((column, value) -> (!(value instanceof byte[] bytes)) ? value
					: column.equalsIgnoreCase("owner_id") ? HexFormat.of().formatHex(bytes)
							: new String(bytes, StandardCharsets.UTF_8)));
			return rows;
		}

		List<Run> runs() {
			return this.jdbc.query("SELECT call_key, version, instance, attempt, called_at, ran_at FROM cluster_run",
					(rs, n) -> new Run(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getInt(4),
							TestDatabases.instant(rs.getLong(5)), TestDatabases.instant(rs.getLong(6))));
		}

	}

}
