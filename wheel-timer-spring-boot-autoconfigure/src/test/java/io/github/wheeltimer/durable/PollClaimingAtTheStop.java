package io.github.wheeltimer.durable;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;

import static org.awaitility.Awaitility.await;

/**
 * A bean of a test's {@link DurableApp} that holds a poll at its claim statement until the
 * application's close reaches the race between that claim and the stop's hand-back: it wraps
 * the application's {@link CallRepository}. Once {@linkplain #arm() armed}, the next claim waits
 * on the poll's thread until either the stop's first bulk release returned (then the claim goes
 * on, and that release waits for it to end, so that it lands between the stop's two releases)
 * or a thread of the stop waits for a lock the poll's thread holds: the stop waits for the poll,
 * and the claim may go on first.
 */
final class PollClaimingAtTheStop implements BeanPostProcessor {

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private final AtomicBoolean armed = new AtomicBoolean();

	private final CountDownLatch claiming = new CountDownLatch(1);

	private final CountDownLatch released = new CountDownLatch(1);

	private final CountDownLatch claimed = new CountDownLatch(1);

	private volatile @Nullable Thread poll;

	/** Holds the next claim statement, a poll's, at the race. */
	void arm() {
		this.armed.set(true);
	}

	/** Returns once a poll waits at its claim statement. */
	void awaitClaiming() throws InterruptedException {
		if (!this.claiming.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
			throw new AssertionError("No poll reached its claim statement");
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof CallRepository calls)) {
			return bean;
		}
		InvocationHandler handler = (proxy, method, arguments) -> switch (method.getName()) {
			case "claim" -> claim(() -> invoke(calls, method, arguments));
			case "handBackAll" -> handBackAll(() -> invoke(calls, method, arguments));
			default -> invoke(calls, method, arguments);
		};
		return Proxy.newProxyInstance(CallRepository.class.getClassLoader(), new Class<?>[] { CallRepository.class },
				handler);
	}

	private @Nullable Object claim(Statement claim) throws Throwable {
		if (!this.armed.compareAndSet(true, false)) {
			return claim.run();
		}
		Thread poll = Thread.currentThread();
		this.poll = poll;
		this.claiming.countDown();
		await().atMost(PATIENCE).until(() -> this.released.getCount() == 0 || aThreadWaitsForALockOf(poll));
		try {
			return claim.run();
		}
		finally {
			this.claimed.countDown();
		}
	}

	private @Nullable Object handBackAll(Statement handBackAll) throws Throwable {
		@Nullable Object released = handBackAll.run();
		this.released.countDown();
		if (this.poll != null && !this.claimed.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
			throw new AssertionError("The held claim did not end");
		}
		return released;
	}

	/** @return whether a thread is parked on, or blocked at, a lock that {@code owner} holds */
	private static boolean aThreadWaitsForALockOf(Thread owner) {
		long id = owner.getId();
		return Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(false, false))
			.mapToLong(ThreadInfo::getLockOwnerId)
			.anyMatch((lockOwner) -> lockOwner == id);
	}

	private static @Nullable Object invoke(CallRepository calls, Method method, @Nullable Object[] arguments)
			throws Throwable {
		try {
			return method.invoke(calls, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	@FunctionalInterface
	private interface Statement {

		@Nullable Object run() throws Throwable;

	}

}
