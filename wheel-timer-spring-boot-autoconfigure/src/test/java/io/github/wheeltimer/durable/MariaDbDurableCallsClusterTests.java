package io.github.wheeltimer.durable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link DurableCallsClusterTests} on a real MariaDB 10.11, through MariaDB's driver. Each instance
 * connects as a user of its own name, which is how the server's process list tells its sessions
 * from the others'.
 */
class MariaDbDurableCallsClusterTests extends DurableCallsClusterTests {

	@Override
	String newDatabase() {
		return MariaDb.newDatabase("mariadb");
	}

	@Override
	RestartableDatabase restartable() {
		return MariaDb.restartable();
	}

	@Override
	String instanceUrl(String url, String name) {
		JdbcTemplate root = new JdbcTemplate(TestDatabases.dataSource(url));
		root.execute("CREATE USER IF NOT EXISTS '" + name + "'@'%'");
		root.execute("GRANT ALL PRIVILEGES ON *.* TO '" + name + "'@'%'");
		return url.replace("user=root", "user=" + name);
	}

	@Override
	long sessions(Database db, String name) {
		return db.count("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ?", name);
	}

}
