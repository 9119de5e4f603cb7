package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Ahead-of-time processing of the application's {@link DelayedExecution} methods: what a native
 * image needs at run time that it cannot see in the generated code. The registry looks the methods
 * up on their beans' classes; a durable call runs its method reflectively, with arguments that
 * Jackson reads back by the parameters' declared types (and a key's SpEL reads their properties).
 * Registered in {@code META-INF/spring/aot.factories}; runs at build time only.
 */
final class DelayedExecutionAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Map<Class<?>, List<Method>> delayed = new LinkedHashMap<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(name, false);
			if (type == null) {
				continue;
			}
			Class<?> userType = ClassUtils.getUserClass(type);
			if (delayed.containsKey(userType) || !AnnotationUtils.isCandidateClass(userType, DelayedExecution.class)) {
				continue;
			}
			List<Method> methods = new ArrayList<>();
			for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userType, ReflectionUtils.USER_DECLARED_METHODS)) {
				if (method.isAnnotationPresent(DelayedExecution.class)) {
					methods.add(method);
				}
			}
			if (!methods.isEmpty()) {
				delayed.put(userType, methods);
			}
		}
		if (delayed.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
			BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
			delayed.forEach((type, methods) -> {
				reflection.registerType(type);
				for (Method method : methods) {
					reflection.registerMethod(method, ExecutableMode.INVOKE);
					DelayedExecution annotation = method.getAnnotation(DelayedExecution.class);
					if (annotation != null && annotation.durable()) {
						bindings.registerReflectionHints(reflection, method.getGenericParameterTypes());
					}
				}
			});
		};
	}

}
