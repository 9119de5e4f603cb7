package io.github.wheeltimer.durable;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLTransactionRollbackException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.wheeltimer.durable.storage.CallRepository;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.dao.CannotAcquireLockException;

/**
 * A bean of a test's {@link DurableApp} that makes the database's answer to the first statement
 * ending a call in its method's own transaction a deadlock, as MariaDB or PostgreSQL give one to
 * the loser of a lock cycle: the statement does not run, and the exception rolls the method's
 * transaction back. It wraps the application's {@link CallRepository}; every other statement runs
 * on the real database.
 */
final class FinishRefusedOnce implements BeanPostProcessor {

	private final AtomicBoolean refused = new AtomicBoolean();

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (!(bean instanceof CallRepository calls)) {
			return bean;
		}
		InvocationHandler handler = (proxy, method, arguments) -> {
			if (method.getName().equals("finish") && method.getParameterCount() == 3 && this.refused.compareAndSet(false, true)) {
				throw new CannotAcquireLockException("Deadlock found when trying to get lock (test)",
						new SQLTransactionRollbackException("Deadlock found when trying to get lock (test)", "40001"));
			}
			try {
				return method.invoke(calls, arguments);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		};
		return Proxy.newProxyInstance(CallRepository.class.getClassLoader(), new Class<?>[] { CallRepository.class },
				handler);
	}

}
