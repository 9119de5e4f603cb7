package io.github.wheeltimer.durable.storage;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a failed statement says about the database goes by what the database said (its SQLState)
 * before Spring's type, which calls a full disk and a cancelled statement resource failures too:
 * only a database that cannot be reached stops take-overs and the shutdown's writes.
 */
class DatabaseFailureTests {

	@ParameterizedTest
	@CsvSource({ "08006, UNREACHABLE", "08001, UNREACHABLE", "57P01, UNREACHABLE", "90121, UNREACHABLE",
			"57014, TRANSIENT", "53100, TRANSIENT", "53300, TRANSIENT", "40P01, TRANSIENT", "40001, TRANSIENT",
			"42P01, SCHEMA", "42703, SCHEMA", "42S02, SCHEMA", "22021, REFUSED", "23505, REFUSED", "54000, REFUSED" })
	void theDatabasesStateDecidesWhateverTypeSpringGaveIt(String state, DatabaseFailure kind) {
		SQLException said = new SQLException("the database says " + state, state);
		assertThat(DatabaseFailure.of(new DataAccessResourceFailureException("resource failure", said))).isEqualTo(kind);
		assertThat(DatabaseFailure.of(new UncategorizedSQLException("task", "SELECT 1", said))).isEqualTo(kind);
	}

	@Test
	void withoutAStateSpringsTypeDecides() {
		assertThat(DatabaseFailure.of(new CannotGetJdbcConnectionException("pool closed"))).isEqualTo(DatabaseFailure.UNREACHABLE);
		assertThat(DatabaseFailure.of(new CannotCreateTransactionException("no connection")))
			.isEqualTo(DatabaseFailure.UNREACHABLE);
		assertThat(DatabaseFailure.of(new CannotGetJdbcConnectionException("timed out",
				new SQLTransientConnectionException("Connection is not available, request timed out after 30000ms"))))
			.isEqualTo(DatabaseFailure.UNREACHABLE);
		assertThat(DatabaseFailure.of(new BadSqlGrammarException("task", "SELECT 1", new SQLException("no table"))))
			.isEqualTo(DatabaseFailure.SCHEMA);
		assertThat(DatabaseFailure.of(new QueryTimeoutException("slow"))).isEqualTo(DatabaseFailure.TRANSIENT);
		assertThat(DatabaseFailure.of(new DataIntegrityViolationException("refused"))).isEqualTo(DatabaseFailure.REFUSED);
		assertThat(DatabaseFailure.of(new IllegalStateException("a bug"))).isEqualTo(DatabaseFailure.REFUSED);
	}

	/**
	 * The commit broke and so did the rollback Spring tried next, on a connection HikariCP had
	 * closed meanwhile: Spring throws the rollback's failure, whose cause has no state.
	 */
	@Test
	void aCommitOrRollbackThatFailedWithoutAStateIsAConnectionGone() {
		assertThat(DatabaseFailure.of(new TransactionSystemException("JDBC rollback failed",
				new SQLException("Connection is closed")))).isEqualTo(DatabaseFailure.UNREACHABLE);
		assertThat(DatabaseFailure.of(new TransactionSystemException("Could not commit JDBC transaction",
				new SQLException("deferred constraint", "23505")))).as("a commit the database refused")
			.isEqualTo(DatabaseFailure.REFUSED);
		assertThat(DatabaseFailure.of(new TransactionSystemException("no JDBC under it")))
			.isEqualTo(DatabaseFailure.REFUSED);
	}

	@Test
	void aChainOfCausesThatLoopsEndsTheSearch() {
		SQLException first = new SQLException("first");
		SQLException second = new SQLException("second");
		first.initCause(second);
		second.initCause(first);
		assertThat(DatabaseFailure.of(new UncategorizedSQLException("task", "SELECT 1", first)))
			.isEqualTo(DatabaseFailure.REFUSED);
	}

}
