package dev.updraft.systemtests.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's share, backed up as docs/operations.md says: {@code pg_dump --format=custom} of a database an
 * ingester is writing, more check-ins after the dump, the database lost, {@code pg_restore} of the dump, the
 * services started again: the ingester resumes from the offsets the dump holds (stored in the same
 * transactions as the rows) and stores the check-ins made after the dump from the telemetry topic, so every
 * device is counted exactly once, and the audit reads as before. Debian's {@code pg_dump} and {@code pg_restore}
 * ({@code .ci/install-pg-client.sh}, version 15 on Debian 12) against a PostgreSQL 15 server from zonky's
 * binaries ({@code pg_dump} refuses a server newer than itself).
 */
@ExtendWith(RealInfrastructure.class)
class PostgresDumpIT {
  static final String DB = "telemetry";

  @TempDir Path work;

  @Test
  void aRestoredDumpPlusTheTelemetryTopicCountsEveryDeviceOnce(Infra shared) throws Exception {
    assertThat(major(run("pg_dump", "--version"))).as("pg_dump's major version: it must be at least the server's (15)").isGreaterThanOrEqualTo(15);
    try (EmbeddedPostgres pg = start(work.resolve("pg"))) {
      sql(pg.getPort(), "postgres", "CREATE DATABASE " + DB);
      Infra infra = new Infra(shared.kafkaBootstrap(), shared.topicPrefix(), "127.0.0.1", pg.getPort(), DB, "postgres", "");
      Path data = work.resolve("data");
      Path dump = work.resolve("telemetry.dump");
      String audit;
      try (Stack stack = Stack.start(infra, data)) {
        CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
        cli.json("apps", "create", "demo");
        cli.json("publish", "--app", "demo", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
        checkIns(stack, 0, 20);
        awaitCount(pg.getPort(), "SELECT sum(check_ins) FROM devices WHERE app_id = 'demo'", 20);
        String dumped = run("pg_dump", "--format=custom", "--host=127.0.0.1", "--port=" + pg.getPort(), "--username=postgres",
            "--dbname=" + DB, "--file=" + dump);
        assertThat(dumped).as("pg_dump's output").isEmpty();
        checkIns(stack, 20, 30); // after the dump: only the telemetry topic has them when the database is lost
        awaitCount(pg.getPort(), "SELECT sum(check_ins) FROM devices WHERE app_id = 'demo'", 30);
        audit = Http.get(stack.controlUrl() + "/v1/apps/demo/audit", "authorization", "Bearer " + Stack.ADMIN_TOKEN).body();
        assertThat(audit).contains("update.published");
      }

      sql(pg.getPort(), "postgres", "DROP DATABASE " + DB + " WITH (FORCE)");
      sql(pg.getPort(), "postgres", "CREATE DATABASE " + DB);
      String restored = run("pg_restore", "--host=127.0.0.1", "--port=" + pg.getPort(), "--username=postgres", "--dbname=" + DB, "--no-owner",
          dump.toString());
      assertThat(restored).as("pg_restore's output").isEmpty();
      assertThat(count(pg.getPort(), "SELECT sum(check_ins) FROM devices WHERE app_id = 'demo'")).as("the dump's devices").isEqualTo(20);

      try (Stack stack = Stack.start(infra, data)) {
        awaitCount(pg.getPort(), "SELECT sum(check_ins) FROM devices WHERE app_id = 'demo'", 30);
        assertThat(count(pg.getPort(), "SELECT count(*) FROM devices WHERE app_id = 'demo'")).isEqualTo(30);
        assertThat(count(pg.getPort(), "SELECT count(*) FROM update_receipts WHERE app_id = 'demo'")).as("one receipt per device served").isEqualTo(30);
        Thread.sleep(1000); // nothing counted twice once caught up
        assertThat(count(pg.getPort(), "SELECT sum(check_ins) FROM devices WHERE app_id = 'demo'")).isEqualTo(30);
        assertThat(Http.get(stack.controlUrl() + "/v1/apps/demo/audit", "authorization", "Bearer " + Stack.ADMIN_TOKEN).body()).isEqualTo(audit);
      }
    }
  }

  /** Devices {@code from} to {@code to - 1}, each asking the edge for the update once. */
  static void checkIns(Stack stack, int from, int to) throws Exception {
    for (int i = from; i < to; i++) {
      int status = Http.get(stack.edgeUrl() + "/apps/demo/manifest", "expo-platform", i % 2 == 0 ? "ios" : "android", "expo-runtime-version",
          "1.0.0", "expo-channel-name", "main", "expo-protocol-version", "1", "accept", "multipart/mixed",
          "eas-client-id", "00000000-0000-4000-8000-" + String.format("%012d", i)).statusCode();
      assertThat(status).isEqualTo(200);
    }
  }

  /** PostgreSQL 15 from zonky's binaries (the jar the build copied to target/pgdump), trust authentication on loopback. */
  static EmbeddedPostgres start(Path dir) throws IOException {
    String jar = System.getProperty("updraft.pgdump.serverBinaries");
    assertThat(jar).as("system property updraft.pgdump.serverBinaries (set by the system-tests pom)").isNotNull();
    byte[] txz;
    try (ZipFile z = new ZipFile(jar)) {
      ZipEntry e = z.getEntry("postgres-linux-x86_64.txz");
      assertThat(e).as("the PostgreSQL archive in " + jar).isNotNull();
      try (InputStream in = z.getInputStream(e)) {
        txz = in.readAllBytes();
      }
    }
    return EmbeddedPostgres.builder()
        .setPgBinaryResolver((system, machine) -> new ByteArrayInputStream(txz))
        .setDataDirectory(dir)
        .setCleanDataDirectory(true)
        .setPort(Ports.freePort())
        .setPGStartupWait(Duration.ofSeconds(60))
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("fsync", "off")
        .start();
  }

  /** Runs a PostgreSQL client program; returns what it printed, failing on a non-zero exit. */
  static String run(String... command) throws Exception {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new AssertionError(command[0] + " is not installed: run .ci/install-pg-client.sh (Debian's postgresql-client)", e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(command[0] + " finished").isTrue();
    assertThat(p.exitValue()).as("%s: %s", String.join(" ", command), out).isZero();
    return out;
  }

  static int major(String version) {
    Matcher m = Pattern.compile("\\(PostgreSQL\\) (\\d+)").matcher(version);
    assertThat(m.find()).as("a version in '%s'", version).isTrue();
    return Integer.parseInt(m.group(1));
  }

  static void sql(int port, String db, String statement) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + db, "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }

  static long count(int port, String query) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + DB, "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Waits until {@code query} answers {@code expected}, at most 60 s; fails naming what it answered. */
  static void awaitCount(int port, String query, long expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<Long> seen = new ArrayList<>();
    long n = count(port, query);
    while (n != expected && System.nanoTime() < deadline) {
      Thread.sleep(100);
      n = count(port, query);
      if (seen.isEmpty() || seen.get(seen.size() - 1) != n) {
        seen.add(n);
      }
    }
    assertThat(n).as("%s within 60 s (answers seen %s)", query, seen).isEqualTo(expected);
  }
}
