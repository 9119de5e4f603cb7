package io.github.wheeltimer.annotation;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.wheeltimer.annotation.CallsOnThis.Call;
import io.github.wheeltimer.annotation.CallsOnThis.Dispatch;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.asm.Type;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Warns at startup about {@link DelayedExecution} methods that their own bean calls directly. Such
 * a call does not go through the bean's proxy, so it runs at once, in the caller's thread, and a
 * durable method's call is not stored: the silent failure of every proxy-based annotation, here
 * with a cost ("cancel after 30 minutes" cancelling at once). One WARN per method names every
 * method that calls it and the fix.
 * <p>
 * The check is static, runs once after the singletons are created, and costs nothing on the call
 * path: it reads the class files of each bean type that has delayed methods, of its superclasses
 * and of its interfaces (not those of the JDK), each class file once, and matches the calls their
 * code makes on {@code this} ({@link CallsOnThis}) against the bean type's delayed methods as the
 * JVM would dispatch them: a virtual call by name and descriptor, through a generic bridge too (a
 * superclass's {@code this.expire(item)} reaching the bean's {@code expire(Order)}), but not one
 * naming a private method of the same name; a {@code super.x()} only if the method it names is the
 * delayed one, so an annotated override calling the method it overrides is not reported.
 * <p>
 * Reported: a call whose receiver is {@code this} as the method received it, in any method of the
 * bean's class, its superclasses or its interfaces' default methods, constructors and the delayed
 * method itself included, written as {@code this.x()}, {@code x()}, {@code super.x()}, in a lambda,
 * or as a bound reference {@code this::x}. Not reported: {@code this} reached any other way (kept in
 * a field or another local variable, returned by a method, an inner or anonymous class's
 * {@code Outer.this.x()}, whose code is in a class file of its own); a receiver that is {@code this}
 * on one path only ({@code (urgent ? this : other).x()}); {@code this} handed to other code that
 * calls back; reflection and method handles; an unbound reference ({@code OrderService::x}). It
 * reports code, not runs: a call in a branch that never runs is reported too. A class file that
 * cannot be read (a class generated at runtime, a format this ASM does not know) is skipped with a
 * DEBUG line: this check never fails startup. Turning this logger's WARN off skips the reading.
 */
final class SelfInvocations {

	private static final Log logger = LogFactory.getLog(SelfInvocations.class);

	/** Each class file read once, however many bean types share the class. */
	private final Map<Class<?>, List<Call>> callsByClass = new HashMap<>();

	/** Per delayed method, the methods that call it on this; one warning each. */
	private final Map<Method, SelfCalled> selfCalled = new LinkedHashMap<>();

	private SelfInvocations() {
	}

	/**
	 * Logs one WARN for each delayed method of the given bean types that its bean calls on itself.
	 * @param beanTypes bean types that have {@link DelayedExecution} methods, each once
	 */
	static void warnAbout(Collection<Class<?>> beanTypes) {
		if (!logger.isWarnEnabled()) {
			return;
		}
		SelfInvocations invocations = new SelfInvocations();
		for (Class<?> beanType : beanTypes) {
			try {
				invocations.inspect(beanType);
			}
			catch (RuntimeException | LinkageError ex) {
				logger.debug("Could not look for calls of its own @DelayedExecution methods in " + beanType.getName(),
						ex);
			}
		}
		invocations.selfCalled.forEach((method, self) -> logger.warn(self.message(method)));
	}

	private void inspect(Class<?> beanType) {
		Map<String, Method> delayed = delayedMethods(beanType);
		Map<String, Class<?>> hierarchy = new LinkedHashMap<>();
		for (Class<?> type = beanType; type != null && type != Object.class; type = type.getSuperclass()) {
			hierarchy.put(Type.getInternalName(type), type);
		}
		for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanType)) {
			hierarchy.put(Type.getInternalName(type), type);
		}
		for (Class<?> type : hierarchy.values()) {
			for (Call call : calls(type)) {
				Method target = delayed.get(call.name() + call.descriptor());
				if (target != null && runs(call, target, hierarchy.get(call.owner()))) {
					this.selfCalled.computeIfAbsent(target, (method) -> new SelfCalled(beanType))
						.callers()
						.add(call.caller());
				}
			}
		}
	}

	/** The delayed methods by the name and descriptor a call names, bridges included. */
	private static Map<String, Method> delayedMethods(Class<?> beanType) {
		Map<String, Method> delayed = new HashMap<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanType)) {
			Method bridged = BridgeMethodResolver.findBridgedMethod(method);
			if (bridged.isAnnotationPresent(DelayedExecution.class)) {
				delayed.put(method.getName() + Type.getMethodDescriptor(method), bridged);
			}
		}
		return delayed;
	}

	/** Whether the call, made on the bean itself, runs the delayed method. */
	private static boolean runs(Call call, Method target, @Nullable Class<?> owner) {
		Method named = (owner != null) ? declaredFrom(owner, call.name(), call.descriptor()) : null;
		if (call.dispatch() == Dispatch.SPECIAL) {
			return target.equals(named);
		}
		// A virtual call runs the bean type's implementation, unless it names one that is not overridden:
		// a private method, or a package-private one of another package.
		if (named == null || named.equals(target)) {
			return true;
		}
		int modifiers = named.getModifiers();
		return !Modifier.isPrivate(modifiers) && (Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers)
				|| named.getDeclaringClass().getPackageName().equals(target.getDeclaringClass().getPackageName()));
	}

	/** The method a call naming {@code owner} resolves to, as the JVM looks it up in its superclasses. */
	private static @Nullable Method declaredFrom(Class<?> owner, String name, String descriptor) {
		for (Class<?> type = owner; type != null; type = type.getSuperclass()) {
			for (Method method : type.getDeclaredMethods()) {
				if (method.getName().equals(name) && Type.getMethodDescriptor(method).equals(descriptor)) {
					return method;
				}
			}
		}
		return null;
	}

	private List<Call> calls(Class<?> type) {
		return this.callsByClass.computeIfAbsent(type, SelfInvocations::read);
	}

	private static List<Call> read(Class<?> type) {
		ClassLoader classLoader = type.getClassLoader();
		if (classLoader == null || type.getName().startsWith("java.")) {
			return List.of();
		}
		String classFile = ClassUtils.convertClassNameToResourcePath(type.getName()) + ClassUtils.CLASS_FILE_SUFFIX;
		try (InputStream bytes = classLoader.getResourceAsStream(classFile)) {
			if (bytes == null) {
				logger.debug("No class file " + classFile + " to look for calls of @DelayedExecution methods on this");
				return List.of();
			}
			return CallsOnThis.read(bytes);
		}
		catch (IOException | RuntimeException ex) {
			logger.debug("Could not read " + classFile + " to look for calls of @DelayedExecution methods on this", ex);
			return List.of();
		}
	}

	/**
	 * @param beanType the bean type that calls the method, named in the fix
	 * @param callers the calling methods, in the order found
	 */
	private record SelfCalled(Class<?> beanType, Set<String> callers) {

		SelfCalled(Class<?> beanType) {
			this(beanType, new LinkedHashSet<>());
		}

		String message(Method method) {
			boolean durable = method.getAnnotation(DelayedExecution.class).durable();
			String type = this.beanType.getSimpleName();
			return "@DelayedExecution on " + MethodNames.describe(method) + " is skipped when its bean calls it on"
					+ " itself, as " + joined(new ArrayList<>(this.callers)) + ((this.callers.size() > 1) ? " do" : " does")
					+ ": such a call does not go through the bean's proxy, so it runs at once, in the caller's thread,"
					+ " not after the delay" + (durable ? ", and is not kept in the database" : "")
					+ ". Call it through the bean instead (inject the bean into itself lazily, with @Lazy or"
					+ " ObjectProvider<" + type + ">), or move the method into another bean.";
		}

		private static String joined(List<String> callers) {
			int last = callers.size() - 1;
			return (last == 0) ? callers.get(0)
					: String.join(", ", callers.subList(0, last)) + " and " + callers.get(last);
		}

	}

}
