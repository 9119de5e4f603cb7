package io.github.wheeltimer.annotation;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationCode;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ahead-of-time processing finds the application's delayed methods and keeps for a native image
 * what running them needs: the methods, and for durable ones the parameter types Jackson reads
 * back, down to the types they hold.
 */
class DelayedExecutionAotProcessorTests {

	@Test
	void durableMethodsAndTheirParameterTypesAreKeptForReflection() throws NoSuchMethodException {
		RuntimeHints hints = process(Shop.class);
		Method remind = Shop.class.getMethod("remind", Order.class, Map.class);
		assertThat(RuntimeHintsPredicates.reflection().onType(Shop.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(remind)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class.getMethod("id"))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Line.class)).as("a type an argument holds")
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Shop.class.getMethod("ping", String.class)))
			.as("in-memory methods are looked up and run through their proxies").accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Pinged.class))
			.as("an in-memory method's arguments are kept by reference, never read back").rejects(hints);
	}

	@Test
	void anApplicationWithoutDelayedMethodsContributesNothing() {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("plain", new RootBeanDefinition(Pinged.class));
		assertThat(new DelayedExecutionAotProcessor().processAheadOfTime(beanFactory)).isNull();
	}

	private static RuntimeHints process(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		BeanFactoryInitializationAotContribution contribution = new DelayedExecutionAotProcessor()
			.processAheadOfTime(beanFactory);
		assertThat(contribution).isNotNull();
		GenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(DelayedExecutionAotProcessorTests.class)),
				new InMemoryGeneratedFiles());
		contribution.applyTo(generationContext, (BeanFactoryInitializationCode) null);
		return generationContext.getRuntimeHints();
	}

	public static class Shop {

		@DelayedExecution(delay = 30_000, durable = true, key = "#order.id")
		public void remind(Order order, Map<String, Object> attributes) {
		}

		@DelayedExecution(delay = 10)
		public void ping(String text) {
		}

		public void notDelayed(Pinged pinged) {
		}

	}

	public record Order(String id, List<Line> lines) {
	}

	public record Line(String item, int quantity) {
	}

	public record Pinged(String text) {
	}

}
