package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.springframework.util.ClassUtils;

/** How messages and reports name a method: {@code OrderService.cancelIfUnpaid(String)}. */
final class MethodNames {

	private MethodNames() {
	}

	static String describe(Method method) {
		return ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName()
				+ Arrays.stream(method.getParameterTypes())
					.map(ClassUtils::getShortName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

}
