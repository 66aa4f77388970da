package dev.updraft.dbschema;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned migrations of Updraft's PostgreSQL schema: the SQL files listed, in order, in the
 * classpath resource {@code db/migration/index.txt} ({@code V<n>__<description>.sql}), each applied once
 * in its own transaction and recorded in {@code schema_version} with its SHA-256.
 *
 * <p>Several instances may start at once: the whole run holds a PostgreSQL session advisory lock, so one
 * applies the missing versions and the others then find nothing to do. A file changed after it was
 * applied stops the start (its recorded checksum no longer matches): released migrations are never
 * edited, a change is a new version. Versions in the database that this build does not know (a newer
 * build migrated it) are logged and left alone; migrations only add.
 *
 * <p>Both users apply it at start: the ingester (which writes the tables) and the control plane's
 * insights (which read them, and must find them even before any ingester ran).
 *
 * <p>Thread-safe: stateless.
 */
public final class SchemaMigrations {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaMigrations.class);

  /** Key of the advisory lock: the ASCII of "updraft" as a number, so it is recognisable in pg_locks. */
  static final long LOCK_KEY = 0x75_70_64_72_61_66_74L;

  static final String INDEX = "db/migration/index.txt";
  private static final Pattern NAME = Pattern.compile("V(\\d+)__([A-Za-z0-9_]+)\\.sql");

  /** One migration file. */
  record Migration(int version, String description, String file, String sql, String checksum) {}

  private SchemaMigrations() {}

  /**
   * Applies the migrations this build knows and the database lacks.
   *
   * @return the number of migrations applied now (0 when the schema was current)
   */
  public static Future<Integer> apply(Pool pool) {
    List<Migration> migrations;
    try {
      migrations = load();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return pool.getConnection()
        .compose(
            conn ->
                conn.query("SELECT pg_advisory_lock(" + LOCK_KEY + ")")
                    .execute()
                    .compose(
                        locked ->
                            conn.query(
                                    "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY,"
                                        + " description text NOT NULL, checksum text NOT NULL,"
                                        + " applied_at timestamptz NOT NULL DEFAULT now())")
                                .execute())
                    .compose(created -> conn.query("SELECT version, checksum FROM schema_version").execute())
                    .compose(
                        rows -> {
                          Map<Integer, String> applied = new TreeMap<>();
                          for (Row r : rows) {
                            applied.put(r.getInteger(0), r.getString(1));
                          }
                          return applyMissing(conn, migrations, applied);
                        })
                    .eventually(
                        () ->
                            conn.query("SELECT pg_advisory_unlock(" + LOCK_KEY + ")")
                                .execute()
                                .eventually(conn::close)));
  }

  private static Future<Integer> applyMissing(SqlConnection conn, List<Migration> migrations, Map<Integer, String> applied) {
    List<Migration> todo = new ArrayList<>();
    for (Migration m : migrations) {
      String recorded = applied.get(m.version());
      if (recorded == null) {
        todo.add(m);
      } else if (!recorded.equals(m.checksum())) {
        return Future.failedFuture(
            new IllegalStateException(
                "migration " + m.file() + " was changed after it was applied: recorded sha256=" + recorded
                    + " file sha256=" + m.checksum() + "; add a new version instead of editing a released one"));
      }
    }
    int known = migrations.isEmpty() ? 0 : migrations.get(migrations.size() - 1).version();
    for (Integer v : applied.keySet()) {
      if (v > known) {
        LOG.warn("database schema has version={} which this build does not know (newest known={}); going on", v, known);
      }
    }
    Future<Integer> chain = Future.succeededFuture(0);
    for (Migration m : todo) {
      chain = chain.compose(n -> applyOne(conn, m).map(n + 1));
    }
    return chain.onSuccess(
        n -> {
          if (n > 0) {
            LOG.info("applied {} schema migration(s); schema version={}", n, known);
          }
        });
  }

  private static Future<Void> applyOne(SqlConnection conn, Migration m) {
    long t0 = System.nanoTime();
    return conn.begin()
        .compose(
            tx ->
                conn.query(m.sql())
                    .execute()
                    .compose(
                        done ->
                            conn.preparedQuery(
                                    "INSERT INTO schema_version (version, description, checksum) VALUES ($1, $2, $3)")
                                .execute(Tuple.of(m.version(), m.description(), m.checksum())))
                    .compose(done -> tx.commit())
                    .recover(
                        err ->
                            tx.rollback()
                                .transform(
                                    r ->
                                        Future.<Void>failedFuture(
                                            new IllegalStateException(
                                                "schema migration " + m.file() + " failed: " + err.getMessage(), err)))))
        .onSuccess(v -> LOG.info("schema migration {} applied in {} ms", m.file(), (System.nanoTime() - t0) / 1_000_000));
  }

  /** The migrations listed in the index, checked for names and order. */
  static List<Migration> load() {
    String index = resource(INDEX);
    List<Migration> out = new ArrayList<>();
    int previous = 0;
    for (String line : index.split("\n")) {
      String name = line.trim();
      if (name.isEmpty() || name.startsWith("#")) {
        continue;
      }
      Matcher m = NAME.matcher(name);
      if (!m.matches()) {
        throw new IllegalStateException(INDEX + " lists '" + name + "': names must look like V<n>__<description>.sql");
      }
      int version = Integer.parseInt(m.group(1));
      if (version <= previous) {
        throw new IllegalStateException(
            INDEX + " is out of order: version=" + version + " after version=" + previous + " (" + name + ")");
      }
      previous = version;
      String sql = resource("db/migration/" + name);
      out.add(new Migration(version, m.group(2).replace('_', ' '), name, sql, sha256(sql)));
    }
    return out;
  }

  private static String resource(String path) {
    try (InputStream in = SchemaMigrations.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("schema migration resource missing from the classpath: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }
}
