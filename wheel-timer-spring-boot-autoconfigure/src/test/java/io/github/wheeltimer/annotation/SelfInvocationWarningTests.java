package io.github.wheeltimer.annotation;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.wheeltimer.autoconfigure.WheelTimerAutoConfiguration;
import io.github.wheeltimer.autoconfigure.WheelTimerDurableAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A delayed method that its own bean calls directly runs at once: startup says so, once per
 * method, naming the callers.
 * <p>
 * Every test that expects no warning also starts {@link ThisCaller}, whose warning proves that the
 * check ran.
 */
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationWarningTests {

	private static final String THIS_CALLER_WARNING = "@DelayedExecution on"
			+ " SelfInvocationWarningTests.ThisCaller.cancelIfUnpaid(String) is skipped when its bean calls it on itself";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
				WheelTimerAutoConfiguration.class));

	@Test
	void aCallThroughThisIsOneWarningNamingTheMethodTheCallerAndTheFix(CapturedOutput output) {
		this.contextRunner.withBean(ThisCaller.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(output).containsOnlyOnce(THIS_CALLER_WARNING)
				.contains("WARN")
				.contains("@DelayedExecution on SelfInvocationWarningTests.ThisCaller.cancelIfUnpaid(String) is skipped"
						+ " when its bean calls it on itself, as SelfInvocationWarningTests.ThisCaller.create(String)"
						+ " does: such a call does not go through the bean's proxy, so it runs at once, in the"
						+ " caller's thread, not after the delay. Call it through the bean instead (inject the bean"
						+ " into itself lazily, with @Lazy or ObjectProvider<ThisCaller>), or move the method into"
						+ " another bean.");
		});
	}

	@Test
	void aPlainCallWithoutThisIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(PlainCaller.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.PlainCaller.cancelIfUnpaid(String) is skipped when its bean calls it"
					+ " on itself, as SelfInvocationWarningTests.PlainCaller.create(String) does"));
	}

	@Test
	void aCallFromALambdaNamesTheMethodThatWritesTheLambda(CapturedOutput output) {
		this.contextRunner.withBean(LambdaCaller.class).run((context) -> {
			assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.LambdaCaller.cancelIfUnpaid(String) is skipped when its bean calls"
					+ " it on itself, as SelfInvocationWarningTests.LambdaCaller.createAll(List) does");
			assertThat(output).doesNotContain("lambda$");
		});
	}

	@Test
	void aMethodReferenceOnThisIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(MethodReferenceCaller.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.MethodReferenceCaller.cancelIfUnpaid(String) is skipped when its bean"
					+ " calls it on itself, as SelfInvocationWarningTests.MethodReferenceCaller.createAll(List) does"));
	}

	@Test
	void aSubclassCallingAnInheritedDelayedMethodIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(SubclassCaller.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.DelayingBase.cancelIfUnpaid(String) is skipped when its bean calls it"
					+ " on itself, as SelfInvocationWarningTests.SubclassCaller.create(String) and"
					+ " SelfInvocationWarningTests.SubclassCaller.createThroughSuper(String) do")
				.contains("ObjectProvider<SubclassCaller>"));
	}

	@Test
	void aSuperclassMethodReachingTheBeansDelayedMethodThroughAGenericBridgeIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(OrderExpirer.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.OrderExpirer.expire(String) is skipped when its bean calls it on"
					+ " itself, as SelfInvocationWarningTests.Expirer.onCreated(Object) does"));
	}

	@Test
	void aDefaultMethodOfAnInterfaceCallingTheBeansDelayedMethodIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(DefaultMethodCaller.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.DefaultMethodCaller.cancelIfUnpaid(String) is skipped when its bean"
					+ " calls it on itself, as SelfInvocationWarningTests.Cancelling.cancelAll(List) does"));
	}

	@Test
	void aMethodCalledFromSeveralPlacesIsOneWarningListingEachCallerOnce(CapturedOutput output) {
		this.contextRunner.withBean(SeveralCallers.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on")
				.contains("@DelayedExecution on SelfInvocationWarningTests.SeveralCallers.cancelIfUnpaid(String) is"
						+ " skipped when its bean calls it on itself, as the constructor"
						+ " SelfInvocationWarningTests.SeveralCallers(), SelfInvocationWarningTests.SeveralCallers"
						+ ".create(String) and SelfInvocationWarningTests.SeveralCallers.retry(String) do"));
	}

	@Test
	void aMethodThatCallsItselfOnThisIsWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(ReArming.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.ReArming.poll() is skipped when its bean calls it on itself, as"
					+ " SelfInvocationWarningTests.ReArming.poll() does"));
	}

	@Test
	void callsOnAnotherBeanAreNotWarnedAboutEvenOnTheBeanItselfThroughItsProvider(CapturedOutput output) {
		this.contextRunner.withBean(ThisCaller.class)
			.withBean(Reminders.class)
			.withBean(OtherBeanCaller.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains(THIS_CALLER_WARNING)
					.doesNotContain("Reminders.remind(String) is skipped")
					.doesNotContain("OtherBeanCaller.cancelIfUnpaid(String) is skipped");
			});
	}

	@Test
	void theReceiverIsFoundBeneathArgumentsOfEveryKindAndOnlyItsOwnCallsAreNamed(CapturedOutput output) {
		this.contextRunner.withBean(Rescheduler.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on"
					+ " SelfInvocationWarningTests.Rescheduler.reschedule(long, double, String[], String) is skipped when"
					+ " its bean calls it on itself, as SelfInvocationWarningTests.Rescheduler.onThis(long, double,"
					+ " String) does:"));
	}

	@Test
	void aBeanWithoutSelfCallsIsNotWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(ThisCaller.class)
			.withBean(Quiet.class)
			.run((context) -> assertThat(output).containsOnlyOnce("@DelayedExecution on")
				.contains(THIS_CALLER_WARNING)
				.doesNotContain("Quiet"));
	}

	@Test
	void anOverrideCallingTheMethodItOverridesAndAGenericBridgeAreNotWarnedAbout(CapturedOutput output) {
		this.contextRunner.withBean(ThisCaller.class)
			.withBean(Overriding.class)
			.withBean(OrderConsumer.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("@DelayedExecution on")
					.contains(THIS_CALLER_WARNING)
					.doesNotContain("Overriding.cancelIfUnpaid(String) is skipped")
					.doesNotContain("OrderConsumer.accept(String) is skipped");
			});
	}

	@Test
	void aDurableMethodIsWarnedThatItsCallIsNotKeptEither(CapturedOutput output) {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DataSourceTransactionManagerAutoConfiguration.class, JacksonAutoConfiguration.class,
					WheelTimerDurableAutoConfiguration.class))
			.withPropertyValues("spring.datasource.url=jdbc:h2:mem:self-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.withBean(DurableOrders.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).containsOnlyOnce("@DelayedExecution on"
						+ " SelfInvocationWarningTests.DurableOrders.cancelIfUnpaid(String) is skipped when its bean"
						+ " calls it on itself, as SelfInvocationWarningTests.DurableOrders.create(String) does: such a"
						+ " call does not go through the bean's proxy, so it runs at once, in the caller's thread, not"
						+ " after the delay, and is not kept in the database.");
			});
	}

	@Test
	void aClassFileThatCannotBeReadIsSkippedAtDebugWithoutFailingStartup(CapturedOutput output) throws Exception {
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		logging.setLogLevel(SelfInvocations.class.getName(), LogLevel.DEBUG);
		try {
			Class<?> unreadable = new BrokenClassFileLoader().loadClass(Unreadable.class.getName());
			this.contextRunner.withBean(ThisCaller.class)
				// Lazy: never proxied, yet inspected at startup like every bean definition.
				.withBean("unreadable", unreadable, () -> null, (definition) -> definition.setLazyInit(true))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).contains(THIS_CALLER_WARNING)
						.doesNotContain("Unreadable.cancelIfUnpaid(String) is skipped")
						.contains("Could not read " + BrokenClassFileLoader.CLASS_FILE
								+ " to look for calls of @DelayedExecution methods on this");
				});
		}
		finally {
			logging.setLogLevel(SelfInvocations.class.getName(), null);
		}
	}

	static class ThisCaller {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			this.cancelIfUnpaid(orderId);
		}

	}

	static class PlainCaller {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			cancelIfUnpaid(orderId);
		}

	}

	static class LambdaCaller {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void createAll(List<String> orderIds) {
			// A lambda inside a lambda: both bodies are methods of their own.
			orderIds.forEach((orderId) -> List.of(orderId).forEach((again) -> this.cancelIfUnpaid(again)));
		}

	}

	static class MethodReferenceCaller {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void createAll(List<String> orderIds) {
			orderIds.forEach(this::cancelIfUnpaid);
		}

	}

	static class DelayingBase {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

	}

	static class SubclassCaller extends DelayingBase {

		public void create(String orderId) {
			cancelIfUnpaid(orderId);
		}

		public void createThroughSuper(String orderId) {
			super.cancelIfUnpaid(orderId);
		}

	}

	static class PlainBase {

		public void cancelIfUnpaid(String orderId) {
		}

	}

	/** {@code super.cancelIfUnpaid(...)} runs the superclass's code, inside the delayed call. */
	static class Overriding extends PlainBase {

		@Override
		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
			super.cancelIfUnpaid(orderId);
		}

	}

	/** Its bridge {@code accept(Object)} calls {@code accept(String)} on this, as every bridge does. */
	static class OrderConsumer implements Consumer<String> {

		@Override
		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void accept(String orderId) {
		}

	}

	abstract static class Expirer<T> {

		public void onCreated(T item) {
			expire(item);
		}

		public abstract void expire(T item);

	}

	static class OrderExpirer extends Expirer<String> {

		@Override
		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void expire(String orderId) {
		}

	}

	interface Cancelling {

		void cancelIfUnpaid(String orderId);

		default void cancelAll(List<String> orderIds) {
			for (String orderId : orderIds) {
				cancelIfUnpaid(orderId);
			}
		}

	}

	static class DefaultMethodCaller implements Cancelling {

		@Override
		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

	}

	static class SeveralCallers {

		SeveralCallers() {
			cancelIfUnpaid("warm-up");
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			cancelIfUnpaid(orderId);
			cancelIfUnpaid(orderId + "-again");
		}

		public void retry(String orderId) {
			if (!orderId.isEmpty()) {
				cancelIfUnpaid(orderId);
			}
		}

	}

	static class ReArming {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void poll() {
			this.poll();
		}

	}

	static class Reminders {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void remind(String orderId) {
		}

	}

	/** The fix the warning gives, and a call on a bean of another class. */
	static class OtherBeanCaller {

		private final ObjectProvider<OtherBeanCaller> self;

		private final Reminders reminders;

		OtherBeanCaller(ObjectProvider<OtherBeanCaller> self, Reminders reminders) {
			this.self = self;
			this.reminders = reminders;
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			this.self.getObject().cancelIfUnpaid(orderId);
			this.reminders.remind(orderId);
			List.of(orderId).forEach(this.self.getObject()::cancelIfUnpaid);
		}

	}

	/** The same arguments, taken in every way, before a call on this and a call on the bean itself. */
	static class Rescheduler {

		private final ObjectProvider<Rescheduler> self;

		Rescheduler(ObjectProvider<Rescheduler> self) {
			this.self = self;
		}

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void reschedule(long attempt, double factor, String[] tags, String reason) {
		}

		public void onThis(long attempt, double factor, String reason) {
			this.reschedule(attempt * 2, (factor > 1) ? factor : 1.0, new String[] { reason, String.valueOf(attempt) },
					(reason != null) ? reason.trim() + attempt : "none");
		}

		public void onTheBean(long attempt, double factor, String reason) {
			this.self.getObject()
				.reschedule(attempt * 2, (factor > 1) ? factor : 1.0, new String[] { reason, String.valueOf(attempt) },
						(reason != null) ? reason.trim() + attempt : "none");
			Rescheduler bean = this.self.getObject();
			try {
				(bean != null ? bean : this.self.getObject()).reschedule(Long.MAX_VALUE, Math.sqrt(factor),
						reason.split(","), reason);
			}
			catch (RuntimeException ex) {
				this.self.getObject().reschedule(attempt, factor, new String[0], ex.getMessage());
			}
			Consumer<String> later = (why) -> this.self.getObject().reschedule(attempt, factor, new String[0], why);
			later.accept(reason);
		}

	}

	static class Quiet {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public String describe(String orderId) {
			return "order " + orderId;
		}

	}

	static class DurableOrders {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES, durable = true)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			this.cancelIfUnpaid(orderId);
		}

	}

	public static class Unreadable {

		@DelayedExecution(delay = 30, timeUnit = TimeUnit.MINUTES)
		public void cancelIfUnpaid(String orderId) {
		}

		public void create(String orderId) {
			this.cancelIfUnpaid(orderId);
		}

	}

	/**
	 * Defines {@link Unreadable} from its class file, so that the class is its own, and serves
	 * something else as that class file.
	 */
	static final class BrokenClassFileLoader extends ClassLoader {

		static final String CLASS_FILE = ClassUtils.convertClassNameToResourcePath(Unreadable.class.getName())
				+ ClassUtils.CLASS_FILE_SUFFIX;

		BrokenClassFileLoader() {
			super(SelfInvocationWarningTests.class.getClassLoader());
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.equals(Unreadable.class.getName())) {
				return super.loadClass(name, resolve);
			}
			synchronized (getClassLoadingLock(name)) {
				Class<?> loaded = findLoadedClass(name);
				if (loaded == null) {
					byte[] bytes = classFile();
					loaded = defineClass(name, bytes, 0, bytes.length);
				}
				return loaded;
			}
		}

		@Override
		public InputStream getResourceAsStream(String name) {
			return CLASS_FILE.equals(name) ? new ByteArrayInputStream("not a class file".getBytes(StandardCharsets.UTF_8))
					: super.getResourceAsStream(name);
		}

		private byte[] classFile() {
			try (InputStream in = getParent().getResourceAsStream(CLASS_FILE)) {
				return in.readAllBytes();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

}
