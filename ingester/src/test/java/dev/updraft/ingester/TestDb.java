package dev.updraft.ingester;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Plain JDBC access for assertions, independent of the Vert.x client the code under test uses. Opens a
 * connection per call (tests are not hot) so that it survives PostgreSQL restarts.
 */
final class TestDb {
  private final String jdbcUrl;

  TestDb(String host, int port, String database, String user) {
    this.jdbcUrl = "jdbc:postgresql://" + host + ":" + port + "/" + database + "?user=" + user;
  }

  /** The {@code --postgres-url} of the same database. */
  static String postgresUrl(String host, int port, String database, String user) {
    return "postgresql://" + user + "@" + host + ":" + port + "/" + database;
  }

  /** Runs one statement that returns no rows. */
  void execute(String sql) {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        java.sql.Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("statement failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  /** One number (null is 0). */
  long scalar(String sql, Object... params) {
    List<List<Object>> rows = rows(sql, params);
    if (rows.isEmpty() || rows.get(0).get(0) == null) {
      return 0;
    }
    return ((Number) rows.get(0).get(0)).longValue();
  }

  /** Every row as a list of column values. */
  List<List<Object>> rows(String sql, Object... params) {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      List<List<Object>> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<Object> row = new ArrayList<>(n);
          for (int i = 1; i <= n; i++) {
            row.add(rs.getObject(i));
          }
          out.add(row);
        }
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException("query failed: " + sql + ": " + e.getMessage(), e);
    }
  }

  /** Rows of (key columns..., last column as long) as a map from the joined key to the number. */
  Map<String, Long> counts(String sql, Object... params) {
    Map<String, Long> m = new HashMap<>();
    for (List<Object> row : rows(sql, params)) {
      StringBuilder k = new StringBuilder();
      for (int i = 0; i < row.size() - 1; i++) {
        if (i > 0) {
          k.append('|');
        }
        k.append(row.get(i));
      }
      m.merge(k.toString(), ((Number) row.get(row.size() - 1)).longValue(), Long::sum);
    }
    return m;
  }

  /** The sum of the next offsets stored for {@code topic}: the records consumed when offsets start at 0. */
  long storedOffsets(String topic) {
    try {
      return scalar("SELECT sum(next_offset) FROM ingest_offsets WHERE topic = ?", topic);
    } catch (IllegalStateException e) {
      return -1; // table not there yet, or PostgreSQL down
    }
  }

  /** Waits until the stored offsets of {@code topic} add up to {@code records}. */
  void awaitConsumed(String topic, long records, Duration timeout) {
    await(() -> storedOffsets(topic) == records, timeout,
        () -> "stored offsets of " + topic + " never reached " + records + ": at " + storedOffsets(topic));
  }

  /** Polls {@code condition} until it holds or {@code timeout} passes. */
  static void await(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> message) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(message.get());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }
}
