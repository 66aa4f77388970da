package dev.updraft.ingester;

import dev.updraft.common.Settings;
import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.ingester.funnel.FunnelKeys;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * What one batch costs PostgreSQL (a main, not a test): a real PostgreSQL 17 ({@code --durable true}:
 * fsync on) and {@link BatchWriter} alone, no Kafka. Batches of {@code --batch-size} check-ins from the
 * benchmark's fleet ({@link IngestBenchmark.Fleet}, {@code --devices}) are written one after another:
 * {@code --warmup} batches first (the registry fills, so that later check-ins mostly update devices it
 * holds), then {@code --batches} measured ones. Printed and written to {@code --summary} (JSON): the wall
 * time per batch (the writer's future), the CPU of PostgreSQL's processes per batch and per check-in, and
 * per statement the mean execution and planning time PostgreSQL's {@code pg_stat_statements} recorded (a statement
 * planned in every batch is one the client did not keep prepared).
 *
 * <p>{@code --steady true} makes devices repeat their attributes from one check-in to the next ({@link
 * IngestBenchmark.Fleet#Fleet(int, long, boolean)}), as most real check-ins do; by default each check-in draws
 * them anew.
 *
 * <p>{@code --funnel-cache N} is the writer's {@code --ingest-funnel-cache} (the ingester's default; 0 sends every funnel
 * row, as before the cache).
 *
 * <p>Flags: {@code --batch-size 10000 --devices 100000 --warmup 10 --batches 10 --durable true --steady false --funnel-cache 2000000 --summary
 * batch-cost-summary.json --dir <temp>}. On a shared machine the wall times mean little; the CPU and the
 * split between statements say more.
 */
final class BatchCostBench {
  private BatchCostBench() {}

  public static void main(String[] args) throws Exception {
    IngestBenchmark.quietLogging();
    Settings s = Settings.parse(args, Map.of());
    int batchSize = s.integer("batch-size", 10_000, 1, 100_000);
    int devices = s.integer("devices", 100_000, 1, 10_000_000);
    int warmup = s.integer("warmup", 10, 0, 1_000);
    int batches = s.integer("batches", 10, 1, 1_000);
    boolean durable = s.bool("durable", true);
    boolean steady = s.bool("steady", false);
    int funnelCache = s.integer("funnel-cache", IngesterConfig.DEFAULT_FUNNEL_CACHE, 0, 50_000_000);
    Path dir = s.path("dir", Files.createTempDirectory("updraft-batch-cost"));
    Path summaryFile = s.path("summary", Path.of("batch-cost-summary.json"));
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, durable);
    Vertx vertx = Vertx.vertx();
    try {
      pg.createDatabase("bench");
      TestDb admin = new TestDb("127.0.0.1", pg.port(), "postgres", EmbeddedPostgresServer.USER);
      admin.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
      admin.execute("ALTER SYSTEM SET max_wal_size = '8GB'");
      admin.execute("ALTER SYSTEM SET pg_stat_statements.track_planning = on");
      pg.stop();
      pg.restart();
      TestDb db = new TestDb("127.0.0.1", pg.port(), "bench", EmbeddedPostgresServer.USER);
      db.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      Pool pool = TelemetryIngester.pool(vertx,
          IngesterConfig.pgOptions(TestDb.postgresUrl("127.0.0.1", pg.port(), "bench", EmbeddedPostgresServer.USER)), 1,
          "batch-cost");
      await(SchemaMigrations.apply(pool));
      AtomicLong funnelSkipped = new AtomicLong();
      BatchWriter writer = new BatchWriter(pool, "bench", new FunnelKeys(funnelCache),
          funnelSkipped::addAndGet);
      IngestBenchmark.Fleet fleet = new IngestBenchmark.Fleet(devices, 1, steady);
      TopicPartition tp = new TopicPartition("bench", 0);
      long offset = 0;
      long at = System.currentTimeMillis();
      long wallNanos = 0;
      long[] cpu0 = null;
      for (int b = 0; b < warmup + batches; b++) {
        if (b == warmup) {
          funnelSkipped.set(0);
          db.execute("SELECT pg_stat_statements_reset()");
          cpu0 = IngestBenchmark.cpuTicks(dir.resolve("pg"));
        }
        Batch batch = new Batch(false);
        for (int i = 0; i < batchSize; i++) {
          batch.cover(tp, offset, offset > 0, offset + i);
          batch.add(CheckIns.clean(fleet.next(at + (offset + i) / 50), 0));
        }
        long t0 = System.nanoTime();
        await(writer.write(batch));
        if (b >= warmup) {
          wallNanos += System.nanoTime() - t0;
        }
        offset += batchSize;
      }
      long[] cpu1 = IngestBenchmark.cpuTicks(dir.resolve("pg"));
      double pgCpuMs = (cpu1[1] - cpu0[1]) * 10.0 / batches;
      Map<String, Object> summary = new LinkedHashMap<>();
      summary.put("benchmark", "batch-cost");
      summary.put("commit", dev.updraft.testing.SourceTree.describe());
      summary.put("durable", durable);
      summary.put("batch_size", batchSize);
      summary.put("devices", devices);
      summary.put("steady", steady);
      summary.put("funnel_cache", funnelCache);
      summary.put("funnel_rows_skipped_per_batch", funnelSkipped.get() / (double) batches);
      summary.put("batches", batches);
      summary.put("load_average_at_end", Files.readString(Path.of("/proc/loadavg")).trim());
      summary.put("wall_ms_per_batch", wallNanos / 1e6 / batches);
      summary.put("postgres_cpu_ms_per_batch", pgCpuMs);
      summary.put("postgres_cpu_us_per_check_in", pgCpuMs * 1000 / batchSize);
      System.out.printf(Locale.ROOT, "%d batches of %d check-ins (%d devices, durable=%s): wall %.1f ms per batch;"
          + " PostgreSQL CPU %.1f ms per batch = %.1f us per check-in; funnel rows skipped %.0f per batch (--funnel-cache %d);"
          + " load average %s%n", batches, batchSize, devices, durable, wallNanos / 1e6 / batches, pgCpuMs,
          pgCpuMs * 1000 / batchSize, funnelSkipped.get() / (double) batches, funnelCache, summary.get("load_average_at_end"));
      List<List<Object>> rows = db.rows("SELECT calls, total_exec_time, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 90),"
          + " wal_bytes, wal_fpi, shared_blks_dirtied, total_plan_time, plans"
          + " FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 12");
      int k = 0;
      for (List<Object> r : rows) {
        double perBatch = ((Number) r.get(1)).doubleValue() / batches;
        double walKb = ((Number) r.get(4)).doubleValue() / 1024 / batches;
        double planPerBatch = ((Number) r.get(7)).doubleValue() / batches;
        System.out.printf(Locale.ROOT, "  %7.1f ms per batch (planning %.2f ms, %s plans)  WAL %7.0f kB (%5.0f full pages) dirtied %5.0f blocks"
            + "  calls=%-4s rows=%-8s %s%n", perBatch, planPerBatch, r.get(8), walKb, ((Number) r.get(5)).doubleValue() / batches,
            ((Number) r.get(6)).doubleValue() / batches, r.get(0), r.get(2), r.get(3));
        k++;
        summary.put("statement_" + k + "_ms_per_batch", perBatch);
        summary.put("statement_" + k + "_plan_ms_per_batch", planPerBatch);
        summary.put("statement_" + k + "_wal_kb_per_batch", walKb);
        summary.put("statement_" + k, r.get(3));
      }
      // how the rows were written: HOT updates need no index entry; the rest write one per index
      for (List<Object> r : db.rows("SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables"
          + " WHERE n_tup_ins + n_tup_upd > 0 ORDER BY n_tup_ins + n_tup_upd DESC LIMIT 6")) {
        System.out.printf(Locale.ROOT, "  table %-20s inserted %-9s updated %-9s of which HOT %s (whole run)%n", r.get(0), r.get(1),
            r.get(2), r.get(3));
        summary.put("table_" + r.get(0) + "_updates_hot_percent",
            ((Number) r.get(3)).doubleValue() * 100 / Math.max(1, ((Number) r.get(2)).doubleValue()));
      }
      Files.writeString(summaryFile, IngestBenchmark.json(summary));
      System.out.println("summary: " + summaryFile.toAbsolutePath());
      await(pool.close());
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      pg.close();
      IngestBenchmark.deleteTree(dir);
    }
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }
}
