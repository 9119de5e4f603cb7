package io.github.wheeltimer.autoconfigure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

import io.github.wheeltimer.annotation.DelayedExecution;
import io.github.wheeltimer.durable.DurableCalls;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The beans the starter registers are named in its own namespace ({@code wheelTimer...}), so that
 * an application's own beans, named after its own classes, never collide with them: an
 * application with a class {@code DurableEngine} of its own starts.
 */
class BeanNamesTests {

	/** The one name the starter documents, which applications refer to. */
	private static final String DOCUMENTED = "wheelTimer";

	@Test
	void userBeansNamedLikeEachOfTheStartersTypesStartCleanly() {
		Set<String> names = beanNamesOfTheStartersTypes();
		assertThat(names).contains("durableCalls", "durableEngine", "durableCallsAdmin", "configuredTimers", "delayedMethodRegistry",
				"delayedCallObserver", "durableSchemaInitializer", "delayedExecutionBeanPostProcessor");
		UserBeans.names = names;
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBeansOfType(UserBean.class)).containsOnlyKeys(names);
			DurableCalls durableCalls = context.getBean(DurableCalls.class);
			assertThat(durableCalls.cancel("Shop.cancelIfUnpaid", "o-1")).isFalse();
		}
	}

	@Test
	void everyBeanOfTheAutoConfigurationsIsNamedInTheStartersNamespace() {
		UserBeans.names = Set.of();
		try (ConfigurableApplicationContext context = start()) {
			List<String> ours = Arrays.stream(context.getBeanFactory().getBeanDefinitionNames())
				.filter((name) -> definedByTheStarter(context.getBeanFactory().getBeanDefinition(name)))
				.toList();
			assertThat(ours).contains(DOCUMENTED, "wheelTimerDurableCalls", "wheelTimerDurableEngine",
					"wheelTimerEndpoint");
			assertThat(ours).allSatisfy((name) -> assertThat(name).startsWith(DOCUMENTED));
		}
	}

	private static ConfigurableApplicationContext start() {
		// SpringApplication, as a user's: bean definition overriding is off.
		return new SpringApplicationBuilder(ShopApplication.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=jdbc:h2:mem:names-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
					"spring.jmx.enabled=true", "spring.jmx.unique-names=true",
					"management.endpoints.jmx.exposure.include=wheeltimer", "spring.main.banner-mode=off")
			.run();
	}

	/** A bean an auto-configuration of the starter defines through a {@code @Bean} method. */
	private static boolean definedByTheStarter(BeanDefinition definition) {
		if (definition instanceof AbstractBeanDefinition bean && bean.getFactoryBeanName() == null
				&& bean.getFactoryMethodName() == null) {
			return false;
		}
		String source = (definition.getResourceDescription() != null) ? definition.getResourceDescription() : "";
		return source.contains("io/github/wheeltimer/autoconfigure/");
	}

	/**
	 * The default bean name of each class in the starter's jars (not their tests'), but those in the
	 * starter's own namespace: {@code wheelTimer}, {@code wheelTimerLifecycle}...
	 */
	private static Set<String> beanNamesOfTheStartersTypes() {
		Set<String> names = new TreeSet<>();
		try {
			for (Resource resource : new PathMatchingResourcePatternResolver()
				.getResources("classpath*:io/github/wheeltimer/**/*.class")) {
				String url = resource.getURL().toString();
				String file = resource.getFilename();
				if (url.contains("test-classes") || file == null || file.contains("$")
						|| file.equals("package-info.class")) {
					continue;
				}
				names.add(StringUtils.uncapitalizeAsProperty(StringUtils.stripFilenameExtension(file)));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		names.removeIf((name) -> name.startsWith(DOCUMENTED));
		return names;
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(UserBeans.class)
	static class ShopApplication {

		@Bean
		Shop shop() {
			return new Shop();
		}

	}

	static class Shop {

		@DelayedExecution(delay = 30, timeUnit = java.util.concurrent.TimeUnit.MINUTES, durable = true,
				key = "#orderId")
		public void cancelIfUnpaid(String orderId) {
		}

	}

	/** An application's own class, which says nothing about the starter. */
	static class UserBean {

	}

	/** Registers the application's beans before the auto-configurations, as component scanning does. */
	static class UserBeans implements ImportBeanDefinitionRegistrar {

		static volatile Set<String> names = Set.of();

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			for (String name : names) {
				registry.registerBeanDefinition(name, new RootBeanDefinition(UserBean.class));
			}
		}

	}

}
