package io.github.wheeltimer.durable.jdbc;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which of {@link DurableSchema}'s steps a database lacks, from what it records and what it lacks,
 * without a database; and the scripts of every step, as the initializer splits them. The steps
 * themselves run on real databases in the durable tests.
 */
class DurableSchemaStepsTests {

	private final DurableDialect h2 = new H2Dialect();

	@Test
	void everyStepHasAScriptForEveryPlatformInItsFolder() {
		for (DurableDialect dialect : List.of(new PostgresDialect(), new MySqlDialect(), MySqlDialect.mariaDb(), this.h2)) {
			List<String> scripts = DurableSchema.scripts(dialect, 1);
			assertThat(scripts).hasSize(DurableSchema.CURRENT_VERSION);
			assertThat(scripts).allSatisfy((script) -> assertThat(new ClassPathResource(script).exists()).as(script).isTrue());
		}
		assertThat(DurableSchema.scripts(this.h2, 1)).containsExactly("io/github/wheeltimer/durable/schema/h2/V1__tables.sql",
				"io/github/wheeltimer/durable/schema/h2/V2__argument_shapes.sql",
				"io/github/wheeltimer/durable/schema/h2/V3__gate_in_place.sql");
	}

	@Test
	void aDatabaseWithoutTablesLacksEveryStep() {
		DurableSchema none = new DurableSchema(0, List.of("WHEEL_TIMER_CALL", "WHEEL_TIMER_INSTANCE"));
		assertThat(none.isCurrent()).isFalse();
		assertThat(none.missingScripts(this.h2)).containsExactlyElementsOf(DurableSchema.scripts(this.h2, 1));
	}

	@Test
	void aDatabaseOfVersion1LacksTheStepsAfterIt() {
		DurableSchema version1 = new DurableSchema(1, List.of("WHEEL_TIMER_CALL.shape", "WHEEL_TIMER_INSTANCE.shapes"));
		assertThat(version1.firstMissingStep()).isEqualTo(2);
		assertThat(version1.missingScripts(this.h2)).containsExactly(
				"io/github/wheeltimer/durable/schema/h2/V2__argument_shapes.sql",
				"io/github/wheeltimer/durable/schema/h2/V3__gate_in_place.sql");
	}

	@Test
	void aColumnOfAnEarlierStepMissingGoesBackToThatStep() {
		// Tables from an earlier copy of the first script, or a version recorded by hand.
		assertThat(new DurableSchema(1, List.of("WHEEL_TIMER_CALL.retries", "WHEEL_TIMER_CALL.shape")).firstMissingStep())
			.isEqualTo(1);
		assertThat(new DurableSchema(2, List.of("WHEEL_TIMER_INSTANCE.shapes")).firstMissingStep()).isEqualTo(2);
		assertThat(new DurableSchema(2, List.of("WHEEL_TIMER_INSTANCE")).firstMissingStep()).isEqualTo(1);
	}

	@Test
	void tablesOfThisVersionOrANewerOneLackNothing() {
		assertThat(new DurableSchema(3, List.of()).isCurrent()).isTrue();
		assertThat(new DurableSchema(4, List.of()).isCurrent()).isTrue();
		assertThat(new DurableSchema(4, List.of()).missingScripts(this.h2)).isEmpty();
		// A version recorded without what it adds.
		assertThat(new DurableSchema(3, List.of("WHEEL_TIMER_CALL.shape")).isCurrent()).isFalse();
		assertThat(new DurableSchema(3, List.of("WHEEL_TIMER_INSTANCE.tables_version")).firstMissingStep()).isEqualTo(3);
	}

	@Test
	void aScriptSplitsIntoItsStatementsWithoutItsComments() {
		List<String> statements = DurableSchemaInitializer.statements("""
				-- A comment; with a semicolon.
				CREATE TABLE T (
				    a INTEGER, -- the first; of one
				    b VARCHAR(8) DEFAULT '' NOT NULL
				);

				INSERT INTO T (a) VALUES (1);
				""");
		assertThat(statements).containsExactly("CREATE TABLE T (\na INTEGER,\nb VARCHAR(8) DEFAULT '' NOT NULL\n)",
				"INSERT INTO T (a) VALUES (1)");
	}

}
