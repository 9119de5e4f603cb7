package io.github.wheeltimer.durable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.SQLNonTransientConnectionException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.wheeltimer.durable.storage.CallRepository;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A test's hook on the calls' repository: once armed, the next claim statement that claims
 * something commits, and then throws as a connection that dropped before its answer came back
 * would. The instance then holds none of the rows it claimed, which the database says it owns.
 */
final class ClaimAnswerLost implements BeanPostProcessor {

	private final AtomicBoolean armed = new AtomicBoolean();

	private volatile int lost;

	void arm() {
		this.armed.set(true);
	}

	/** @return how many claimed rows the lost answer left behind */
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
					if (method.getName().equals("claim") && result instanceof List<?> claimed && !claimed.isEmpty()
							&& this.armed.compareAndSet(true, false)) {
						this.lost = claimed.size();
						throw new DataAccessResourceFailureException("Claim committed, answer lost (test)",
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
