package io.github.wheeltimer.durable;

/**
 * {@link DurableCallsClusterTests} on a real PostgreSQL, where each instance names its sessions
 * ({@code ApplicationName}) in {@code pg_stat_activity}.
 */
class PostgresDurableCallsClusterTests extends DurableCallsClusterTests {

	@Override
	String newDatabase() {
		return Postgres.newDatabase();
	}

	@Override
	RestartableDatabase restartable() {
		return Postgres.restartable();
	}

	@Override
	String instanceUrl(String url, String name) {
		return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + name;
	}

	@Override
	long sessions(Database db, String name) {
		return db.count("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?", name);
	}

}
