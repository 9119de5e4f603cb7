package io.github.wheeltimer.annotation;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.util.Arrays;
import java.util.stream.Collectors;

import org.springframework.util.ClassUtils;

/**
 * How messages and reports name a method, {@code OrderService.cancelIfUnpaid(String)}, or a
 * constructor, {@code OrderService(String)}.
 */
final class MethodNames {

	private MethodNames() {
	}

	static String describe(Executable method) {
		return ClassUtils.getShortName(method.getDeclaringClass())
				+ ((method instanceof Constructor) ? "" : "." + method.getName())
				+ Arrays.stream(method.getParameterTypes())
					.map(ClassUtils::getShortName)
					.collect(Collectors.joining(", ", "(", ")"));
	}

}
