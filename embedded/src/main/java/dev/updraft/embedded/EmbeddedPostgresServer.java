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
   * @param durable false turns fsync, synchronous commit and full-page writes off (tests); true turns them on,
   *     PostgreSQL's defaults (a local run whose data should survive a crash of the machine)
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

  /**
   * Crashes the server: SIGKILLs the postmaster (its pid from {@code postmaster.pid} in the data directory), so nothing
   * is flushed or checkpointed, then waits until its backends have noticed and exited (up to 30 s each; one that has
   * not is killed too). The data stays: {@link #restart()} then runs PostgreSQL's crash recovery from the WAL.
   *
   * @return the pid of the killed postmaster
   */
  public long kill() {
    if (pg == null) {
      throw new IllegalStateException("postgres not running on port=" + port);
    }
    long pid;
    try {
      pid = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read postmaster.pid in " + dataDir, e);
    }
    ProcessHandle postmaster =
        ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("no postmaster process: pid=" + pid + " port=" + port));
    java.util.List<ProcessHandle> backends = postmaster.descendants().toList();
    postmaster.destroyForcibly(); // SIGKILL
    awaitExit(postmaster, "postmaster");
    for (ProcessHandle b : backends) {
      if (!awaitExit(b, "backend")) {
        b.destroyForcibly();
        awaitExit(b, "backend");
      }
    }
    LOG.info("postgres killed: pid={} port={} backends={} (the 'Could not stop postmaster' error that follows is expected:"
        + " closing the embedded library's handle releases its lock on the data directory, and its pg_ctl stop finds no server)",
        pid, port, backends.size());
    try {
      pg.close();
    } catch (IOException | RuntimeException e) {
      LOG.debug("closing the killed postgres: {}", e.toString());
    } finally {
      pg = null;
    }
    return pid;
  }

  private static boolean awaitExit(ProcessHandle p, String what) {
    try {
      p.onExit().get(30, TimeUnit.SECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn("{} pid={} still running 30 s after the postmaster was killed", what, p.pid());
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("waiting for " + what + " pid=" + p.pid(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + what + " pid=" + p.pid(), e);
    }
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
      // set either way: zonky's builder turns fsync and synchronous_commit off unless told otherwise
      String onOff = durable ? "on" : "off";
      b.setServerConfig("fsync", onOff)
          .setServerConfig("synchronous_commit", onOff)
          .setServerConfig("full_page_writes", onOff);
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
