package dev.updraft.testing;

import dev.updraft.embedded.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * A real PostgreSQL ({@link EmbeddedPostgresServer}) that takes TLS connections only: {@code ssl=on} with a
 * server certificate from a {@link TestCa} for the names given, and a {@code pg_hba.conf} of
 * {@code hostssl ... trust} with every connection without TLS rejected (as RDS with
 * {@code rds.force_ssl=1}, or Cloud SQL requiring SSL, do). Not thread-safe: start and close from the test.
 */
public final class TlsPostgres implements AutoCloseable {
  public static final String DATABASE = "updraft";
  private final EmbeddedPostgresServer server;

  private TlsPostgres(EmbeddedPostgresServer server) {
    this.server = server;
  }

  /** Starts it under {@code dir} with a certificate of {@code ca} for {@code dnsNames} and {@code ips}. */
  public static TlsPostgres start(Path dir, TestCa ca, List<String> dnsNames, List<String> ips) {
    Path data = dir.resolve("pgdata");
    EmbeddedPostgresServer s = EmbeddedPostgresServer.start(data, 0, false);
    try {
      s.createDatabase(DATABASE);
      TestCa.PemFiles cert = ca.server(dir.resolve("pgcerts"), "postgres-server", dnsNames, ips);
      Files.copy(cert.cert(), data.resolve("server.crt"));
      Files.copy(cert.key(), data.resolve("server.key"));
      // PostgreSQL refuses a key others may read
      Files.setPosixFilePermissions(data.resolve("server.key"), PosixFilePermissions.fromString("rw-------"));
      Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
          "local all all trust",
          "hostnossl all all 0.0.0.0/0 reject",
          "hostnossl all all ::/0 reject",
          "hostssl all all 127.0.0.1/32 trust",
          "hostssl all all ::1/128 trust", ""));
      try (Connection c = DriverManager.getConnection(s.jdbcUrl("postgres"));
          Statement st = c.createStatement()) {
        st.execute("ALTER SYSTEM SET ssl = on");
        st.execute("ALTER SYSTEM SET ssl_cert_file = 'server.crt'");
        st.execute("ALTER SYSTEM SET ssl_key_file = 'server.key'");
        st.execute("SELECT pg_reload_conf()");
      }
      return new TlsPostgres(s);
    } catch (IOException e) {
      s.close();
      throw new UncheckedIOException("cannot set up TLS for PostgreSQL under " + data, e);
    } catch (SQLException | RuntimeException e) {
      s.close();
      throw new IllegalStateException("cannot turn TLS on in PostgreSQL under " + data + ": " + e.getMessage(), e);
    }
  }

  public int port() {
    return server.port();
  }

  /** {@code postgresql://postgres@127.0.0.1:port/updraft}: the services' URL form (TLS comes from their flags). */
  public String url() {
    return "postgresql://" + EmbeddedPostgresServer.USER + "@127.0.0.1:" + port() + "/" + DATABASE;
  }

  /** A JDBC URL of the database over TLS (not verifying the server: for the test's own looks). */
  public String jdbcUrl() {
    return server.jdbcUrl(DATABASE) + "&sslmode=require";
  }

  @Override
  public void close() {
    server.close();
  }
}
