package dev.updraft.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 server from zonky's packaged binaries, with its data in a directory of ours and
 * trust authentication on 127.0.0.1. Stopping and starting again on the same directory keeps the data.
 * Not thread-safe: start and stop from one thread.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  /** The superuser; trust authentication on loopback needs no password. */
  public static final String USER = "postgres";

  private final Path dataDir;
  private final int port;
  private final boolean durable;
  private EmbeddedPostgres pg;

  private EmbeddedPostgresServer(Path dataDir, int port, boolean durable) {
    this.dataDir = dataDir;
    this.port = port;
    this.durable = durable;
  }

  /**
   * Starts PostgreSQL on {@code dataDir} (initialised if new).
   *
   * @param port 0 for a free one
   * @param durable false turns fsync and synchronous commit off (tests); true keeps PostgreSQL's
   *     defaults (a local run whose data should survive a crash of the machine)
   */
  public static EmbeddedPostgresServer start(Path dataDir, int port, boolean durable) {
    EmbeddedPostgresServer s = new EmbeddedPostgresServer(dataDir, port == 0 ? Ports.freePort() : port, durable);
    s.startServer();
    return s;
  }

  public int port() {
    return port;
  }

  public boolean running() {
    return pg != null;
  }

  /** A JDBC URL for {@code database}. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
  }

  /** Creates {@code database} unless it exists. */
  public void createDatabase(String database) {
    if (!database.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("database name must be a lower-case identifier: database=" + database);
    }
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
        if (rs.next()) {
          return;
        }
      }
      st.execute("CREATE DATABASE " + database);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + database + " on port " + port, e);
    }
  }

  /** Starts again on the same data and port after {@link #stop()}. */
  public void restart() {
    if (pg != null) {
      throw new IllegalStateException("postgres already running on port=" + port);
    }
    startServer();
  }

  /** Stops the server (fast shutdown); data stays. */
  public void stop() {
    if (pg == null) {
      return;
    }
    try {
      pg.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stop postgres on port " + port, e);
    } finally {
      pg = null;
    }
    LOG.info("postgres stopped port={}", port);
  }

  @Override
  public void close() {
    stop();
  }

  private void startServer() {
    long t0 = System.nanoTime();
    try {
      Files.createDirectories(dataDir);
      EmbeddedPostgres.Builder b =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setPGStartupWait(Duration.ofSeconds(60))
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setServerConfig("max_connections", "200");
      if (!durable) {
        b.setServerConfig("fsync", "off")
            .setServerConfig("synchronous_commit", "off")
            .setServerConfig("full_page_writes", "off");
      }
      pg = b.start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start postgres on 127.0.0.1:" + port + " with data in " + dataDir + ": " + e.getMessage(), e);
    }
    LOG.info(
        "postgres ready at 127.0.0.1:{} (data {}) in {} ms",
        port,
        dataDir,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
  }
}
