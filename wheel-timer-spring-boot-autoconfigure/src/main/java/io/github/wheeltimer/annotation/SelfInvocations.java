package io.github.wheeltimer.annotation;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

import io.github.wheeltimer.annotation.CallsOnThis.Call;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.BridgeMethodResolver;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Warns at startup about {@link DelayedExecution} methods that their own bean calls directly. Such
 * a call does not go through the bean's proxy, so it runs at once, in the caller's thread, and a
 * durable method's call is not stored: "cancel after 30 minutes" cancels at once. One WARN per
 * method names every method that calls it and the fix.
 * <p>
 * The check runs once after the singletons are created and costs nothing on the call path. It
 * reads the class files of each bean type that has delayed methods, of its superclasses and of its
 * interfaces (not the JDK's), and matches the calls their code makes on {@code this}
 * ({@link CallsOnThis}) against the delayed methods as the JVM dispatches them: by name and
 * parameter types, through a generic bridge too (a superclass's {@code expire(item)} reaching the
 * bean's {@code expire(Order)}), but not a superclass's private method of the same name; and a
 * {@code super.x()} only if the method it names is the delayed one.
 * <p>
 * Reported: a call on {@code this} (as the method received it) in any method of the bean's class,
 * its superclasses or its interfaces' default methods, constructors included, written as
 * {@code this.x()}, {@code x()}, {@code super.x()}, in a lambda, or as a reference {@code this::x}.
 * Code is reported, not runs: a call in a branch that never runs is reported too, and so is a
 * superclass's call of its own package-private method of the same name, which a bean's class in
 * another package does not override. Not reported: {@code this} reached any other way (a field,
 * another local variable, a method's result, {@code Outer.this.x()} in an inner class); a receiver
 * that is {@code this} on one path only ({@code (urgent ? this : other).x()}); {@code this} handed
 * to code that calls back; reflection; an unbound reference ({@code OrderService::x}). A class file
 * that cannot be read is skipped with a DEBUG line: this check never fails startup. Turning this
 * logger's WARN off skips it.
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
		// By the name and descriptor a call names, a generic bridge's too: expire(Object) for expire(Order).
		Map<String, Method> calledAs = new HashMap<>();
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(beanType)) {
			if (BridgeMethodResolver.findBridgedMethod(method).isAnnotationPresent(DelayedExecution.class)) {
				calledAs.put(key(method), method);
			}
		}
		Map<String, Class<?>> hierarchy = new LinkedHashMap<>();
		for (Class<?> type = beanType; type != null && type != Object.class; type = type.getSuperclass()) {
			hierarchy.put(type.getName().replace('.', '/'), type);
		}
		ClassUtils.getAllInterfacesForClassAsSet(beanType)
			.forEach((type) -> hierarchy.put(type.getName().replace('.', '/'), type));
		for (Class<?> type : hierarchy.values()) {
			for (Call call : this.callsByClass.computeIfAbsent(type, SelfInvocations::read)) {
				Method method = calledAs.get(call.name() + call.descriptor());
				Method target = (method != null) ? BridgeMethodResolver.findBridgedMethod(method) : null;
				if (target != null && runs(call.special(), target, method, hierarchy.get(call.owner()))) {
					this.selfCalled.computeIfAbsent(target, (key) -> new SelfCalled(beanType, new LinkedHashSet<>()))
						.callers()
						.add(describe(type, call.caller()));
				}
			}
		}
	}

	/**
	 * Whether a call on the bean that names {@code owner} runs the delayed method: a {@code super.x()}
	 * if the class it names inherits the method, a virtual call unless it names a private method there.
	 */
	private static boolean runs(boolean special, Method target, Method calledAs, @Nullable Class<?> owner) {
		if (special) {
			return owner != null && target.getDeclaringClass().isAssignableFrom(owner);
		}
		Method named = (owner != null)
				? ReflectionUtils.findMethod(owner, calledAs.getName(), calledAs.getParameterTypes()) : null;
		return named == null || named.equals(target) || !Modifier.isPrivate(named.getModifiers());
	}

	/** A method's name and descriptor as class files write them: {@code create(Ljava/lang/String;)V}. */
	private static String key(Executable method) {
		Class<?> returnType = (method instanceof Method named) ? named.getReturnType() : void.class;
		return ((method instanceof Method) ? method.getName() : "<init>")
				+ MethodType.methodType(returnType, method.getParameterTypes()).toMethodDescriptorString();
	}

	/** The calling method as people read it, such as {@code OrderService.create(String)}. */
	private static String describe(Class<?> type, String caller) {
		return Stream.concat(Stream.of(type.getDeclaredConstructors()), Stream.of(type.getDeclaredMethods()))
			.filter((method) -> key(method).equals(caller))
			.findFirst()
			.map((method) -> ((method instanceof Constructor) ? "the constructor " : "") + MethodNames.describe(method))
			.orElse(ClassUtils.getShortName(type) + "." + caller);
	}

	private static List<Call> read(Class<?> type) {
		ClassLoader classLoader = type.getClassLoader();
		if (classLoader == null || type.getName().startsWith("java.")) {
			return List.of();
		}
		String classFile = ClassUtils.convertClassNameToResourcePath(type.getName()) + ClassUtils.CLASS_FILE_SUFFIX;
		try (InputStream bytes = classLoader.getResourceAsStream(classFile)) {
			return CallsOnThis.read(Objects.requireNonNull(bytes, "No such resource"));
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

		String message(Method method) {
			boolean durable = method.getAnnotation(DelayedExecution.class).durable();
			List<String> all = List.copyOf(this.callers);
			int last = all.size() - 1;
			String callers = (last == 0) ? all.get(0) + " does"
					: String.join(", ", all.subList(0, last)) + " and " + all.get(last) + " do";
			return "@DelayedExecution on " + MethodNames.describe(method) + " is skipped when its bean calls it on"
					+ " itself, as " + callers + ": such a call does not go through the bean's proxy, so it runs at"
					+ " once, in the caller's thread, not after the delay"
					+ (durable ? ", and is not kept in the database" : "") + ". Call it through the bean instead"
					+ " (inject the bean into itself lazily, with @Lazy or ObjectProvider<"
					+ this.beanType.getSimpleName() + ">), or move the method into another bean.";
		}

	}

}
