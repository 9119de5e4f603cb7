package io.github.wheeltimer.durable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.SQLNonTransientConnectionException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A test's hook on the calls' repository: once armed for a statement, the next one that writes
 * something commits, and then throws as a connection that dropped before its answer came back
 * would. After a claim, the instance holds none of the rows it claimed, which the database says
 * it owns; after a caller's insert, the caller is told its call was not accepted, and the row is
 * there.
 */
final class AnswerLost implements BeanPostProcessor {

	/** The statement armed: {@code claim} or {@code insert}; {@code null} once it has thrown. */
	private final AtomicReference<@Nullable String> armed = new AtomicReference<>();

	private volatile int lost;

	/** Arms the next claim that claims rows. */
	void armClaim() {
		this.armed.set("claim");
	}

	/** Arms the next insert of a new call. */
	void armInsert() {
		this.armed.set("insert");
	}

	/** @return how many rows the lost answer left behind */
	int lost() {
		return this.lost;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof CallRepository calls)) {
			return bean;
		}
		return Proxy.newProxyInstance(CallRepository.class.getClassLoader(), new Class<?>[] { CallRepository.class },
				(proxy, method, arguments) -> {
					Object result = invoke(calls, method, arguments);
					int rows = (result instanceof List<?> claimed) ? claimed.size() : 1;
					String name = method.getName();
					if ((name.equals("claim") || name.equals("insert")) && rows > 0 && this.armed.compareAndSet(name, null)) {
						this.lost = rows;
						throw new DataAccessResourceFailureException("Committed, answer lost (test)",
								new SQLNonTransientConnectionException("Socket error (test)", "08000"));
					}
					return result;
				});
	}

	private static @Nullable Object invoke(CallRepository calls, Method method, Object @Nullable [] arguments)
			throws Throwable {
		try {
			return method.invoke(calls, arguments);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
