package io.github.wheeltimer.durable.jdbc;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import io.github.wheeltimer.durable.storage.CallRepository;
import io.github.wheeltimer.durable.storage.InstanceRepository;
import io.github.wheeltimer.durable.storage.InstanceStatus;
import io.github.wheeltimer.durable.storage.MethodShapes;
import io.github.wheeltimer.durable.storage.StoredText;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.StringUtils;

/**
 * The instances' table on a JDBC database. Each statement is one autocommitted round trip;
 * thread-safe.
 */
public final class JdbcInstanceRepository implements InstanceRepository {

	/** Between the method ids of an instance's row: ids are trimmed, so none holds a line break. */
	private static final String METHOD_SEPARATOR = "\n";

	private final JdbcTemplate jdbc;

	private final DurableDialect dialect;

	private final DurableTables tables;

	/**
	 * Creates the repository.
	 * @param dataSource the application's database
	 * @param dialect what differs on it
	 * @param tables the tables' names
	 */
	public JdbcInstanceRepository(DataSource dataSource, DurableDialect dialect, DurableTables tables) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.dialect = dialect;
		this.tables = tables;
	}

	@Override
	public void heartbeat(UUID instance, String name, Collection<String> methods, String shapes,
			boolean shapesChanged) {
		Object id = this.dialect.id(instance);
		String now = this.dialect.now();
		int beat = shapesChanged
				? this.jdbc.update("UPDATE " + this.tables.instances() + " SET heartbeat_at = " + now + ", shapes = ?"
						+ " WHERE id = ?", shapes, id)
				: this.jdbc.update("UPDATE " + this.tables.instances() + " SET heartbeat_at = " + now + " WHERE id = ?",
						id);
		if (beat == 0) {
			this.jdbc.update("INSERT INTO " + this.tables.instances() + " (id, name, started_at, heartbeat_at, methods,"
					+ " shapes, tables_version) VALUES (?, ?, " + now + ", " + now + ", ?, ?, ?)", id,
					StoredText.of(name, CallRepository.NAME_LENGTH), String.join(METHOD_SEPARATOR, methods), shapes,
					DurableSchema.CURRENT_VERSION);
		}
	}

	@Override
	public void unregister(UUID instance) {
		this.jdbc.update("DELETE FROM " + this.tables.instances() + " WHERE id = ?", this.dialect.id(instance));
	}

	@Override
	public int deleteSilentFor(Duration silence) {
		return this.jdbc.update("DELETE FROM " + this.tables.instances() + " WHERE heartbeat_at < "
				+ this.dialect.before(silence));
	}

	@Override
	public List<InstanceStatus> instances(Duration lease) {
		return this.jdbc.query("SELECT i.id, i.name, i.heartbeat_at, CASE WHEN i.heartbeat_at > "
				+ this.dialect.before(lease) + " THEN 1 ELSE 0 END, (SELECT COUNT(*) FROM " + this.tables.calls()
				+ " c WHERE c.owner_id = i.id), i.methods, i.shapes FROM " + this.tables.instances()
				+ " i ORDER BY i.name, i.id",
				(rs, n) -> new InstanceStatus(this.dialect.id(rs, 1), rs.getString(2), this.dialect.instant(rs, 3),
						rs.getInt(4) == 1, rs.getLong(5), methods(rs.getString(6)), MethodShapes.parse(rs.getString(7))));
	}

	/**
	 * One row per live instance, a few short lines each: the count a poll used to read, and what it
	 * leaves. An older starter's row has only its methods.
	 */
	@Override
	public List<Map<String, MethodShapes>> alive(Duration lease) {
		return this.jdbc.query("SELECT shapes, methods FROM " + this.tables.instances() + " WHERE heartbeat_at > "
				+ this.dialect.before(lease), (rs, n) -> shapes(rs.getString(1), rs.getString(2)));
	}

	private static Map<String, MethodShapes> shapes(@Nullable String shapes, @Nullable String methods) {
		Map<String, MethodShapes> published = MethodShapes.parse(shapes);
		if (published != null) {
			return published;
		}
		Map<String, MethodShapes> older = new LinkedHashMap<>();
		methods(methods).forEach((method) -> older.put(method, new MethodShapes("", Set.of())));
		return older;
	}

	private static List<String> methods(@Nullable String joined) {
		return StringUtils.hasLength(joined) ? List.of(joined.split(METHOD_SEPARATOR)) : List.of();
	}

}
