package dev.updraft.ingester;

import dev.updraft.common.Settings;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.embedded.EmbeddedPostgresServer;
import dev.updraft.events.CheckIn;
import dev.updraft.events.CheckInBinary;
import dev.updraft.events.CheckInCodec;
import dev.updraft.events.Topics;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Ingest benchmark (a main, not a test): a real Kafka (KRaft, in this JVM) and a real PostgreSQL 17
 * (its own process, {@code durable=false}: fsync, synchronous_commit and full_page_writes off), both on
 * 127.0.0.1, and one ingester.
 *
 * <ol>
 *   <li><b>Full speed</b>: the topic is filled with {@code --prefill} check-ins first (the producer does
 *       not compete for the CPU), then the ingester starts and drains it; the rate is check-ins
 *       committed to PostgreSQL per second, sampled every 5 s.
 *   <li><b>Fixed rate</b>: a producer sends {@code --rate} check-ins per second for {@code --seconds}
 *       seconds, each stamped with its send time; end-to-end lag is the commit time of the batch that
 *       holds a check-in minus that stamp, for every check-in (p50, p99, max), plus the largest lag in
 *       records the ingester reported, and the CPU per check-in of this JVM (the benchmark's producer
 *       threads taken out) and of PostgreSQL's processes. {@code --rate 2000,5000} runs one phase per rate,
 *       in that order (summary keys {@code fixed_rate_2000_...}, {@code fixed_rate_5000_...}).
 * </ol>
 *
 * <p>Flags: {@code --prefill 2000000 --devices 500000 --rate 10000 --seconds 60 --partitions 4
 * --ingest-batch-size 10000 --ingest-linger 250ms --ingest-consumers 2 --instances 1 --shared-buffers 1GB --dir <temp>},
 * {@code --producer-linger 100ms} (the benchmark's producer batches as an edge's does: {@code KafkaSink} lingers 100 ms
 * with lz4; one producer carries the whole rate, as one edge would), {@code --producers 1} (the rate spread over that
 * many producers, each lingering on its own as a fleet's edges do: more, smaller appends), {@code --settle 0} (seconds of load at the first
 * rate, sent and ingested but not measured, before the measured fixed-rate phases: what the full-speed phase's
 * backlog left behind, its garbage and the database's checkpoint, then falls outside the first phase), {@code --idle 0}
 * (seconds with nothing sent, after the fixed rates: the CPU the pipeline spends per second whatever the rate;
 * {@code --idle-first true}: between the settling and the fixed rates, as before 2026-12-02 21:50), and
 * {@code --durable true} (PostgreSQL with fsync on, the default; {@code false}: the earlier runs' fsync off),
 * {@code --format compact|json} (how the records are written, as an edge's {@code --checkin-format}),
 * {@code --summary FILE} (the run's numbers as JSON; default {@code ingest-summary.json} in the working
 * directory). A smoke run: {@code --prefill 20000 --devices 5000 --rate 500,1000 --seconds 10}. Results are printed too; see
 * {@code docs/benchmarks/ingest.md}.
 */
final class IngestBenchmark {
  private IngestBenchmark() {}

  public static void main(String[] args) throws Exception {
    quietLogging();
    Settings s = Settings.parse(args, Map.of());
    int prefill = s.integer("prefill", 2_000_000, 0, 100_000_000);
    int devices = s.integer("devices", 500_000, 1, 100_000_000);
    List<Integer> rates = rates(s.string("rate", "10000"));
    int seconds = s.integer("seconds", 60, 1, 3_600);
    int partitions = s.integer("partitions", 4, 1, 64);
    int batchSize = s.integer("ingest-batch-size", IngesterConfig.DEFAULT_BATCH_SIZE, 1, 100_000);
    int instances = s.integer("instances", 1, 1, 16);
    int consumers = s.integer("ingest-consumers", IngesterConfig.DEFAULT_CONSUMERS, 1, 64);
    Duration linger = s.duration("ingest-linger", IngesterConfig.DEFAULT_LINGER);
    producerLingerMs = (int) s.duration("producer-linger", Duration.ofMillis(100)).toMillis();
    producers = s.integer("producers", 1, 1, 64);
    int settle = s.integer("settle", 0, 0, 3_600);
    int idle = s.integer("idle", 0, 0, 3_600);
    // before 2026-12-02 21:50 the idle phase ran between the settling and the fixed rates; it now runs last, when the
    // JIT has done more of its work (ingest.md: idle 41 against 66 ms/s, the fixed rates level); --idle-first true as before
    boolean idleFirst = s.bool("idle-first", false);
    String sharedBuffers = s.string("shared-buffers", "1GB");
    Path dir = s.path("dir", Files.createTempDirectory("updraft-ingest-bench"));
    boolean durable = s.bool("durable", true);
    compact = !"json".equals(s.string("format", "compact"));
    Path summaryFile = s.path("summary", Path.of("ingest-summary.json"));
    Map<String, Object> summary = new java.util.LinkedHashMap<>();
    summary.put("benchmark", "ingest");
    summary.put("commit", dev.updraft.testing.SourceTree.describe());
    summary.put("cores", Runtime.getRuntime().availableProcessors());
    summary.put("java", System.getProperty("java.version"));
    summary.put("durable", durable);
    summary.put("format", compact ? "compact" : "json");
    summary.put("prefill", prefill);
    summary.put("devices", devices);
    summary.put("rate", rates.size() == 1 ? rates.get(0) : rates);
    summary.put("seconds", seconds);
    summary.put("partitions", partitions);
    summary.put("batch_size", batchSize);
    summary.put("linger_ms", linger.toMillis());
    summary.put("producer_linger_ms", producerLingerMs);
    summary.put("producers", producers);
    summary.put("settle_seconds", settle);
    summary.put("idle_seconds", idle);
    summary.put("idle_first", idleFirst);
    summary.put("load_average_at_start", Files.readString(Path.of("/proc/loadavg")).trim());

    System.out.printf(Locale.ROOT, "machine: %d cores, %s %s, max heap %d MB%n", Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.vm.name"), System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);
    System.out.printf(Locale.ROOT, "settings: prefill=%d devices=%d rate=%s/s seconds=%d partitions=%d batch=%d instances=%d"
        + " consumers per instance=%d linger=%d ms producer linger=%d ms producers=%d settle=%d s shared_buffers=%s dir=%s%n", prefill,
        devices, rates, seconds, partitions, batchSize, instances, consumers, linger.toMillis(), producerLingerMs, producers, settle,
        sharedBuffers, dir);
    System.out.println("load average at start: " + Files.readString(Path.of("/proc/loadavg")).trim());

    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, durable);
    Vertx vertx = Vertx.vertx();
    try {
      pg.createDatabase("bench");
      // PostgreSQL's defaults are sized for a laptop: give it the memory a telemetry database would get
      TestDb admin = new TestDb("127.0.0.1", pg.port(), "postgres", EmbeddedPostgresServer.USER);
      admin.execute("ALTER SYSTEM SET shared_buffers = '" + sharedBuffers + "'");
      admin.execute("ALTER SYSTEM SET max_wal_size = '8GB'");
      pg.stop();
      pg.restart();
      String topic = Topics.telemetry("bench.");
      TestKafka.createTopic(kafka.bootstrapServers(), topic, partitions);
      // the events topic exists wherever an ingester runs: without it the history consumer asks for metadata every second
      TestKafka.createTopic(kafka.bootstrapServers(), Topics.events("bench."), 1);
      Fleet fleet = new Fleet(devices, 1);
      TestDb db = new TestDb("127.0.0.1", pg.port(), "bench", EmbeddedPostgresServer.USER);

      // ---- full speed ----
      long t0 = System.nanoTime();
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka.bootstrapServers())) {
        long at = System.currentTimeMillis();
        for (int i = 0; i < prefill; i++) {
          send(producer, topic, fleet.next(at + i / 50));
        }
        producer.flush();
      }
      double produceSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "prefill: %d check-ins produced in %.1f s (%.0f/s)%n", prefill, produceSeconds,
          prefill / produceSeconds);

      LatencyRecorder latencies = new LatencyRecorder();
      IngesterConfig config =
          IngesterConfig.from(
              Settings.of(
                  Map.of(
                      "kafka-bootstrap", kafka.bootstrapServers(),
                      "topic-prefix", "bench.",
                      "postgres-url", TestDb.postgresUrl("127.0.0.1", pg.port(), "bench", EmbeddedPostgresServer.USER),
                      "ingest-batch-size", String.valueOf(batchSize),
                      "ingest-consumers", String.valueOf(consumers),
                      "ingest-linger", linger.toMillis() + "ms",
                      "metrics-port", "0"),
                  Map.of()));
      List<TelemetryIngester> all = new ArrayList<>();
      long[] cpu0 = cpuTicks(dir.resolve("pg"));
      Map<String, Long> pgKinds0 = pgTicksByKind(dir.resolve("pg"));
      Map<String, Long> threads0 = threadCpu();
      for (int k = 0; k < instances; k++) {
        all.add(TelemetryIngester.start(vertx, config, IngestLoop.Hook.NONE, latencies).toCompletionStage().toCompletableFuture()
            .get(120, TimeUnit.SECONDS));
      }
      Instances ingester = new Instances(all);
      try {
        long start = System.nanoTime();
        List<Double> samples = new ArrayList<>();
        long last = 0;
        long lastT = start;
        long at10 = 0;
        long at90 = 0;
        long c10 = 0;
        long c90 = 0;
        int ticks = 0;
        while (true) {
          long c = counter(ingester);
          long now = System.nanoTime();
          if (at10 == 0 && c >= prefill / 10) {
            at10 = now;
            c10 = c;
          }
          if (at90 == 0 && c >= prefill * 9L / 10) {
            at90 = now;
            c90 = c;
          }
          if (c >= prefill) {
            break;
          }
          Thread.sleep(1_000);
          if (++ticks % 5 == 0) {
            long n = counter(ingester);
            long t = System.nanoTime();
            double r = (n - last) / ((t - lastT) / 1e9);
            samples.add(r);
            System.out.printf(Locale.ROOT, "  full speed: %,d committed, %.0f/s over the last %.1f s, lag %,d%n", n, r,
                (t - lastT) / 1e9, (long) ingester.lag());
            last = n;
            lastT = t;
          }
        }
        double drain = (System.nanoTime() - start) / 1e9;
        double sustained = (c90 - c10) / ((at90 - at10) / 1e9);
        long[] cpu1 = cpuTicks(dir.resolve("pg"));
        Map<String, Double> pgFull = perUnit(pgKinds0, pgTicksByKind(dir.resolve("pg")), prefill);
        System.out.printf(Locale.ROOT, "CPU during full speed: this JVM (Kafka broker, ingester) %.1f s = %.1f us per check-in;"
            + " PostgreSQL processes %.1f s = %.1f us per check-in; wall %.1f s on 2 cores%n",
            (cpu1[0] - cpu0[0]) / 100.0, (cpu1[0] - cpu0[0]) * 10_000.0 / prefill, (cpu1[1] - cpu0[1]) / 100.0,
            (cpu1[1] - cpu0[1]) * 10_000.0 / prefill, drain);
        long others = (cpu1[2] - cpu0[2]) - (cpu1[0] - cpu0[0]) - (cpu1[1] - cpu0[1]);
        System.out.printf(Locale.ROOT, "  machine busy %.0f %% of 2 cores; other tenants' processes used %.1f s (%.0f %% of a core)%n",
            (cpu1[2] - cpu0[2]) / (drain * 2) , others / 100.0, others / drain);
        Map<String, Long> threads1 = threadCpu();
        StringBuilder byThread = new StringBuilder();
        long javaThreads = 0;
        for (Map.Entry<String, Long> e : threads1.entrySet()) {
          long d = e.getValue() - threads0.getOrDefault(e.getKey(), 0L);
          javaThreads += d;
          if (d > 200_000_000L) {
            byThread.append(String.format(Locale.ROOT, " %s=%.1fs", e.getKey(), d / 1e9));
          }
        }
        System.out.printf(Locale.ROOT, "  JVM CPU by thread group:%s; not in Java threads (GC, JIT) %.1f s%n", byThread,
            (cpu1[0] - cpu0[0]) / 100.0 - javaThreads / 1e9);
        System.out.printf(Locale.ROOT, "full speed: %d check-ins into PostgreSQL in %.1f s = %.0f/s from ingester start;"
            + " sustained (10%% to 90%% of the backlog) %.0f/s; 5 s samples: %s%n", prefill, drain, prefill / drain, sustained,
            format(samples));
        report(ingester, db, "after full speed");
        summary.put("full_speed_per_second_from_start", Math.round(prefill / drain));
        summary.put("full_speed_mean_batch_records", ingester.meanBatchSince(new double[2]));
        summary.put("full_speed_sustained_per_second", Math.round(sustained));
        // funnel rows the ingester knew written and did not send (--ingest-funnel-cache), and those in the table
        summary.put("full_speed_funnel_rows_skipped", Math.round(ingester.sum("updraft.ingest.funnel.rows.skipped")));
        summary.put("full_speed_funnel_rows_stored", db.scalar("SELECT count(*) FROM update_funnel"));
        summary.put("full_speed_samples_per_second", samples);
        summary.put("cpu_us_per_check_in_jvm", (cpu1[0] - cpu0[0]) * 10_000.0 / prefill);
        summary.put("cpu_us_per_check_in_postgres", (cpu1[1] - cpu0[1]) * 10_000.0 / prefill);
        summary.put("cpu_us_per_check_in_postgres_by_process", pgFull);
        System.out.println("  PostgreSQL CPU per check-in by process (us): " + pgFull);
        summary.put("cpu_us_per_check_in_total", ((cpu1[0] - cpu0[0]) + (cpu1[1] - cpu0[1])) * 10_000.0 / prefill);
        summary.put("machine_busy_percent", (cpu1[2] - cpu0[2]) / (drain * 2));

        // ---- settling: load at the first rate, not measured ----
        if (settle > 0) {
          AtomicLong settled = new AtomicLong();
          long before = counter(ingester);
          long s0 = System.nanoTime();
          paced(kafka.bootstrapServers(), topic, fleet, rates.get(0), settle, settled);
          while (counter(ingester) < before + settled.get()) {
            Thread.sleep(100);
          }
          System.out.printf(Locale.ROOT, "settling: %d check-ins at %d/s ingested in %.1f s (not measured)%n", settled.get(),
              rates.get(0), (System.nanoTime() - s0) / 1e9);
        }

        // ---- idle: what the pipeline costs with no check-ins (polling, heartbeats, the broker's housekeeping) ----
        if (idle > 0 && idleFirst) {
          idlePhase(idle, dir.resolve("pg"), summary);
        }

        // ---- fixed rate, one phase per rate, the first right after the settling ----
        for (int rate : rates) {
          fixedRate(kafka.bootstrapServers(), topic, fleet, rate, seconds, ingester, latencies, db, dir.resolve("pg"),
              summary, rates.size() == 1 ? "fixed_rate_" : "fixed_rate_" + rate + "_");
        }
        if (idle > 0 && !idleFirst) {
          idlePhase(idle, dir.resolve("pg"), summary);
        }
        Files.writeString(summaryFile, json(summary));
        System.out.println("summary: " + summaryFile.toAbsolutePath());
      } finally {
        for (TelemetryIngester i : all) {
          i.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      kafka.close();
      pg.close();
      deleteTree(dir);
    }
  }

  /**
   * {@code --idle}: the CPU of this JVM (broker and ingester, by thread group and GC/JIT/VM) and of PostgreSQL
   * over {@code seconds} with no check-ins sent: the pipeline's cost per second that does not depend on the rate.
   */
  private static void idlePhase(int seconds, Path pgData, Map<String, Object> summary) throws Exception {
    long[] cpu0 = cpuTicks(pgData);
    Map<String, Long> pg0 = pgTicksByKind(pgData);
    Map<String, Long> vm0 = vmThreadTicks();
    Map<String, Long> threads0 = threadCpu();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1_000L);
    double wall = (System.nanoTime() - t0) / 1e9;
    long[] cpu1 = cpuTicks(pgData);
    // per second: the split helpers take a count to divide by; the wall seconds are that count here
    long perSecond = Math.max(1, Math.round(wall));
    String split = jvmSplit(threads0, threadCpu(), (cpu1[0] - cpu0[0]) * 10_000_000L, perSecond, 1_000.0);
    Map<String, Double> vm = perUnit(vm0, vmThreadTicks(), perSecond);
    Map<String, Double> pg = perUnit(pg0, pgTicksByKind(pgData), perSecond);
    double jvmMs = (cpu1[0] - cpu0[0]) * 10.0 / wall;
    double pgMs = (cpu1[1] - cpu0[1]) * 10.0 / wall;
    System.out.printf(Locale.ROOT, "idle %d s: this JVM (Kafka broker, ingester) %.1f ms of CPU per second, PostgreSQL %.1f ms per second%n",
        seconds, jvmMs, pgMs);
    System.out.printf(Locale.ROOT, "  idle JVM CPU by thread group (us per second, groups of 1 ms or more): %s; of it GC/JIT/VM: %s; PostgreSQL by process: %s%n",
        split, vm, pg);
    summary.put("idle_jvm_ms_per_second", jvmMs);
    summary.put("idle_postgres_ms_per_second", pgMs);
    summary.put("idle_jvm_us_per_second_by_thread", split);
    summary.put("idle_jvm_us_per_second_gc_jit_vm", vm);
    summary.put("idle_postgres_us_per_second_by_process", pg);
  }

  /** {@code --rate}: one rate or several, comma-separated (one fixed-rate phase each, in that order). */
  private static List<Integer> rates(String flag) {
    List<Integer> out = new ArrayList<>();
    for (String r : flag.split(",")) {
      int v = Integer.parseInt(r.trim());
      if (v < 1 || v > 1_000_000) {
        throw new IllegalArgumentException("--rate must be 1..1000000 (or a comma-separated list): rate=" + flag);
      }
      out.add(v);
    }
    return out;
  }

  /**
   * One fixed-rate phase: {@code rate} check-ins per second for {@code seconds}, then until the ingester
   * committed them all. Its numbers go to {@code summary} under {@code prefix}: the rate reached, the
   * end-to-end lag, and the CPU per check-in of this JVM (Kafka broker and ingester: the benchmark's own
   * producer threads are taken out) and of PostgreSQL's processes, as the full-speed phase reports them.
   */
  private static void fixedRate(String bootstrap, String topic, Fleet fleet, int rate, int seconds, Instances ingester,
      LatencyRecorder latencies, TestDb db, Path pgData, Map<String, Object> summary, String prefix) throws Exception {
    latencies.reset(true);
    long before = counter(ingester);
    double[] batches0 = ingester.batches();
    long maxLag = 0;
    AtomicLong sent = new AtomicLong();
    long[] cpu0 = cpuTicks(pgData);
    Map<String, Long> pgKinds0 = pgTicksByKind(pgData);
    Map<String, Long> vm0 = vmThreadTicks();
    Map<String, Long> threads0 = threadCpu();
    Thread producerThread = new Thread(() -> paced(bootstrap, topic, fleet, rate, seconds, sent), "bench-producer");
    long f0 = System.nanoTime();
    producerThread.start();
    long producerNanos = 0;
    while (producerThread.isAlive()) {
      Thread.sleep(250);
      maxLag = Math.max(maxLag, (long) ingester.lag());
      // the producer's threads end with the phase: read them while they run
      producerNanos = Math.max(producerNanos, producerCpu(threadCpu(), threads0));
    }
    double produced = (System.nanoTime() - f0) / 1e9;
    long target = before + sent.get();
    while (counter(ingester) < target) {
      Thread.sleep(100);
    }
    long[] cpu1 = cpuTicks(pgData);
    Map<String, Double> pgKinds = perUnit(pgKinds0, pgTicksByKind(pgData), Math.max(1, sent.get()));
    double wall = (System.nanoTime() - f0) / 1e9;
    latencies.reset(false);
    long n = Math.max(1, sent.get());
    double jvmUs = ((cpu1[0] - cpu0[0]) * 10_000_000.0 - producerNanos) / 1_000.0 / n;
    double pgUs = (cpu1[1] - cpu0[1]) * 10_000.0 / n;
    System.out.printf(Locale.ROOT, "fixed rate %d/s: %d check-ins sent in %.1f s (%.0f/s); end-to-end lag (edge stamp -> commit):"
        + " %s; largest lag reported %d records%n", rate, sent.get(), produced, sent.get() / produced, latencies.summary(),
        maxLag);
    System.out.printf(Locale.ROOT, "  batches at %d/s: %.0f, mean %.0f records%n", rate, ingester.batches()[0] - batches0[0],
        ingester.meanBatchSince(batches0));
    System.out.printf(Locale.ROOT, "  CPU per check-in at %d/s: this JVM (Kafka broker, ingester; the benchmark's producer,"
        + " %.1f s, taken out) %.1f us; PostgreSQL processes %.1f us; total %.1f us over %.1f s; machine busy %.0f %% of 2 cores%n",
        rate, producerNanos / 1e9, jvmUs, pgUs, jvmUs + pgUs, wall, (cpu1[2] - cpu0[2]) / (wall * 2));
    String split = jvmSplit(threads0, threadCpu(), (cpu1[0] - cpu0[0]) * 10_000_000L - producerNanos, n);
    System.out.printf(Locale.ROOT, "  JVM CPU per check-in at %d/s by thread group (us, the producer's taken out): %s%n", rate, split);
    Map<String, Double> vm = perUnit(vm0, vmThreadTicks(), n);
    System.out.printf(Locale.ROOT, "  of the JVM's threads not in Java threads, per check-in at %d/s (us): %s%n", rate, vm);
    System.out.printf(Locale.ROOT, "  PostgreSQL CPU per check-in at %d/s by process (us): %s%n", rate, pgKinds);
    report(ingester, db, "after fixed rate " + rate + "/s");
    summary.put(prefix + "jvm_us_per_check_in_by_thread", split);
    summary.put(prefix + "postgres_us_per_check_in_by_process", pgKinds);
    summary.put(prefix + "jvm_us_per_check_in_gc_jit_vm", vm);
    summary.put(prefix + "sent", sent.get());
    summary.put(prefix + "per_second", sent.get() / produced);
    summary.put(prefix + "lag", latencies.summary());
    summary.put(prefix + "largest_lag_records", maxLag);
    summary.put(prefix + "batches", ingester.batches()[0] - batches0[0]);
    summary.put(prefix + "mean_batch_records", ingester.meanBatchSince(batches0));
    summary.put(prefix + "cpu_us_per_check_in_jvm", jvmUs);
    summary.put(prefix + "cpu_us_per_check_in_postgres", pgUs);
    summary.put(prefix + "cpu_us_per_check_in_total", jvmUs + pgUs);
    summary.put(prefix + "machine_busy_percent", (cpu1[2] - cpu0[2]) / (wall * 2));
  }

  /**
   * The JVM's CPU per check-in by thread group (groups of at least 1 us, the benchmark's producer threads
   * left out), and what no Java thread accounts for (GC, JIT compilation).
   */
  private static String jvmSplit(Map<String, Long> before, Map<String, Long> after, long jvmNanos, long checkIns) {
    return jvmSplit(before, after, jvmNanos, checkIns, 1.0);
  }

  /** The JVM's CPU per unit by thread group, groups of at least {@code min} microseconds per unit. */
  private static String jvmSplit(Map<String, Long> before, Map<String, Long> after, long jvmNanos, long checkIns, double min) {
    StringBuilder sb = new StringBuilder();
    long inThreads = 0;
    for (Map.Entry<String, Long> e : after.entrySet()) {
      if (isProducer(e.getKey())) {
        continue;
      }
      long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
      inThreads += d;
      if (d / 1_000.0 / checkIns >= min) {
        sb.append(String.format(Locale.ROOT, "%s=%.1f, ", e.getKey(), d / 1_000.0 / checkIns));
      }
    }
    return sb.append(String.format(Locale.ROOT, "not in Java threads (GC, JIT)=%.1f", (jvmNanos - inThreads) / 1_000.0 / checkIns))
        .toString();
  }

  /**
   * CPU ticks of the JVM's own threads that {@code ThreadMXBean} does not list, by kind ({@code GC}: collector
   * threads; {@code JIT}: compiler threads; {@code VM}: the VM thread and its periodic task), read from
   * {@code /proc/self/task}. A compiler thread that has ended takes its CPU with it: JIT can read low.
   */
  static Map<String, Long> vmThreadTicks() throws IOException {
    Map<String, Long> m = new java.util.TreeMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"));
          String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String kind = comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("ParGC") ? "GC"
              : comm.contains("CompilerThre") ? "JIT"
              : comm.startsWith("VM Thread") || comm.startsWith("VM Periodic") ? "VM" : null;
          if (kind != null) {
            m.merge(kind, ticks(stat), Long::sum);
          }
        } catch (IOException | RuntimeException gone) {
          // the thread ended meanwhile
        }
      }
    }
    return m;
  }

  private static boolean isProducer(String thread) {
    return thread.startsWith("bench-producer") || thread.startsWith("kafka-producer-network-thread");
  }

  /** CPU nanoseconds the benchmark's producer threads used since {@code before}. */
  private static long producerCpu(Map<String, Long> now, Map<String, Long> before) {
    long sum = 0;
    for (Map.Entry<String, Long> e : now.entrySet()) {
      if (isProducer(e.getKey())) {
        sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
      }
    }
    return sum;
  }

  /** Several ingesters of one group, read as one. */
  record Instances(List<TelemetryIngester> all) {
    double sum(String counter) {
      double s = 0;
      for (TelemetryIngester i : all) {
        s += i.registry().get(counter).counter().count();
      }
      return s;
    }

    /** Committed batches and the Kafka records they held, over all instances, since start. */
    double[] batches() {
      double[] out = new double[2];
      for (TelemetryIngester i : all) {
        var b = i.registry().get("updraft.ingest.batch.size").summary();
        out[0] += b.count();
        out[1] += b.totalAmount();
      }
      return out;
    }

    /** Mean records per batch committed since {@code before} (a {@link #batches()} reading). */
    double meanBatchSince(double[] before) {
      double[] now = batches();
      return (now[1] - before[1]) / Math.max(1, now[0] - before[0]);
    }

    double lag() {
      double s = 0;
      for (TelemetryIngester i : all) {
        s += i.registry().get("updraft.ingest.lag").gauge().value();
      }
      return s;
    }
  }

  /** INFO for ours, WARN for Kafka and the embedded servers, whatever logback configuration is on the path. */
  static void quietLogging() {
    var context = (ch.qos.logback.classic.LoggerContext) org.slf4j.LoggerFactory.getILoggerFactory();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.INFO);
    for (String noisy : new String[] {"org.apache.kafka", "kafka", "state.change.logger", "io.zonky", "io.netty"}) {
      context.getLogger(noisy).setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }

  private static long counter(Instances i) {
    return (long) i.sum("updraft.ingest.records");
  }

  private static void report(Instances in, TestDb db, String when) {
    long batches = 0;
    double records = 0;
    double maxBatch = 0;
    double pgTotal = 0;
    double pgMax = 0;
    for (TelemetryIngester i : in.all()) {
      var b = i.registry().get("updraft.ingest.batch.size").summary();
      var t = i.registry().get("updraft.ingest.pg.time").timer();
      batches += b.count();
      records += b.totalAmount();
      maxBatch = Math.max(maxBatch, b.max());
      pgTotal += t.totalTime(TimeUnit.MILLISECONDS);
      pgMax = Math.max(pgMax, t.max(TimeUnit.MILLISECONDS));
    }
    System.out.printf(Locale.ROOT,
        "  %s: batches=%d mean batch=%.0f records (max %.0f); PostgreSQL time per batch mean %.1f ms (max in the last"
            + " minute %.1f ms); device rows written=%.0f; devices in registry=%d; decode errors=%.0f; funnel rows skipped=%.0f%n",
        when, batches, records / Math.max(1, batches), maxBatch, pgTotal / Math.max(1, batches), pgMax,
        in.sum("updraft.ingest.device.rows"), db.scalar("SELECT count(*) FROM devices"),
        in.sum("updraft.ingest.decode.errors"), in.sum("updraft.ingest.funnel.rows.skipped"));
  }

  /**
   * CPU clock ticks (1/100 s) of this JVM, of every PostgreSQL process of the server in {@code pgData}, and
   * of the whole machine (busy, all processes).
   */
  static long[] cpuTicks(Path pgData) throws IOException {
    long self = ticks(Files.readString(Path.of("/proc/self/stat")));
    long pg = 0;
    for (long t : pgTicksByKind(pgData).values()) {
      pg += t;
    }
    String[] all = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i <= 8 && i < all.length; i++) {
      if (i != 4 && i != 5) { // not idle, not iowait
        busy += Long.parseLong(all[i]);
      }
    }
    return new long[] {self, pg, busy};
  }

  /**
   * CPU ticks of PostgreSQL's processes by kind: {@code client backends} (the ingester's connections), each
   * auxiliary process by its title ({@code walwriter}, {@code checkpointer}, ...), {@code autovacuum workers}
   * alive now, {@code postmaster} itself and {@code exited children}: what the postmaster's children that have
   * ended (autovacuum workers finish a table and exit) used, which the kernel adds to the postmaster's
   * cutime/cstime when it reaps them. Before 2026-12-02 the exited children were not counted.
   */
  static Map<String, Long> pgTicksByKind(Path pgData) throws IOException {
    long postmaster = Long.parseLong(Files.readAllLines(pgData.resolve("postmaster.pid")).get(0).trim());
    Map<String, Long> byKind = new java.util.TreeMap<>();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String stat = Files.readString(p.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          if (Long.parseLong(name) == postmaster) {
            byKind.merge("postmaster", ticks(stat), Long::sum);
            byKind.merge("exited children", Long.parseLong(f[13]) + Long.parseLong(f[14]), Long::sum);
          } else if (Long.parseLong(f[1]) == postmaster) {
            byKind.merge(pgKind(Files.readString(p.resolve("cmdline")).replace('\0', ' ').trim()), ticks(stat), Long::sum);
          }
        } catch (IOException | RuntimeException gone) {
          // the process ended meanwhile
        }
      }
    }
    return byKind;
  }

  private static String pgKind(String title) {
    String t = title.startsWith("postgres: ") ? title.substring("postgres: ".length()) : title;
    if (t.startsWith("autovacuum worker")) {
      return "autovacuum workers";
    }
    if (t.contains("(") || t.contains("[local]")) {
      return "client backends";
    }
    return t;
  }

  /** Tick-map differences ({@code pgTicksByKind}, {@code vmThreadTicks}) as microseconds per check-in (at least 0.5 us). */
  static Map<String, Double> perUnit(Map<String, Long> before, Map<String, Long> after, long checkIns) {
    Map<String, Double> m = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, Long> e : after.entrySet()) {
      double us = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) * 10_000.0 / Math.max(1, checkIns);
      if (us >= 0.5) {
        m.put(e.getKey(), Math.round(us * 10) / 10.0);
      }
    }
    return m;
  }

  /** CPU nanoseconds per thread-name group (digits stripped) of this JVM's live threads. */
  private static Map<String, Long> threadCpu() {
    var mx = java.lang.management.ManagementFactory.getThreadMXBean();
    Map<String, Long> m = new java.util.TreeMap<>();
    for (long id : mx.getAllThreadIds()) {
      var info = mx.getThreadInfo(id);
      long t = mx.getThreadCpuTime(id);
      if (info != null && t > 0) {
        m.merge(info.getThreadName().replaceAll("[0-9]+", "#"), t, Long::sum);
      }
    }
    return m;
  }

  private static long ticks(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static String format(List<Double> samples) {
    StringBuilder sb = new StringBuilder("[");
    for (double d : samples) {
      sb.append(sb.length() > 1 ? ", " : "").append(String.format(Locale.ROOT, "%.0f", d));
    }
    return sb.append(']').toString();
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.LINGER_MS_CONFIG, producerLingerMs);
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    return new KafkaProducer<>(p);
  }

  /** {@code --producer-linger} in milliseconds; set once by main. */
  private static volatile int producerLingerMs = 100;

  /** {@code --producers}: how many producers (edges) share the rate; set once by main. */
  private static volatile int producers = 1;

  /** Whether records are written in the compact form ({@code --format}); set once by main. */
  private static volatile boolean compact = true;
  private static final ThreadLocal<CheckInBinary> WRITER = ThreadLocal.withInitial(CheckInBinary::new);

  private static void send(KafkaProducer<byte[], byte[]> producer, String topic, CheckIn c) {
    byte[] key = c.clientId() == null ? null : c.clientId().getBytes(StandardCharsets.UTF_8);
    producer.send(new ProducerRecord<>(topic, key, compact ? WRITER.get().encode(c) : CheckInCodec.encode(c)));
  }

  /** A flat JSON object of numbers, booleans, strings and lists of numbers. */
  static String json(Map<String, Object> m) {
    StringBuilder sb = new StringBuilder("{\n");
    int i = 0;
    for (Map.Entry<String, Object> e : m.entrySet()) {
      Object v = e.getValue();
      if (v instanceof Map<?, ?> inner) {
        StringBuilder o = new StringBuilder("{");
        for (Map.Entry<?, ?> x : inner.entrySet()) {
          o.append(o.length() > 1 ? ", " : "").append('"').append(x.getKey()).append("\": ").append(x.getValue());
        }
        sb.append("  \"").append(e.getKey()).append("\": ").append(o).append('}').append(++i < m.size() ? ",\n" : "\n");
        continue;
      }
      String value = v instanceof Number || v instanceof Boolean || v instanceof List
          ? String.valueOf(v).replace(" ", "")
          : "\"" + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
      sb.append("  \"").append(e.getKey()).append("\": ").append(value).append(++i < m.size() ? ",\n" : "\n");
    }
    return sb.append("}\n").toString();
  }

  /** Sends {@code rate} check-ins per second, in 10 ms slices, each stamped with the time it is sent. */
  private static void paced(String bootstrap, String topic, Fleet fleet, int rate, int seconds, AtomicLong sent) {
    List<KafkaProducer<byte[], byte[]>> edges = new ArrayList<>(producers);
    for (int i = 0; i < producers; i++) {
      edges.add(producer(bootstrap));
    }
    try {
      long start = System.nanoTime();
      long total = (long) rate * seconds;
      long n = 0;
      while (n < total) {
        long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L);
        long now = System.currentTimeMillis();
        while (n < due) {
          send(edges.get((int) (n % producers)), topic, fleet.next(now));
          n++;
        }
        sent.set(n);
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    } finally {
      for (KafkaProducer<byte[], byte[]> p : edges) {
        p.close(); // sends what lingers first
      }
    }
  }

  /** Check-ins from a fleet of devices: realistic mixes of platforms, channels, outcomes and failures. */
  static final class Fleet {
    private final String[] clients;
    private final Random rnd;
    private final int[] epochs;
    private long seq;

    Fleet(int devices, long seed) {
      this(devices, seed, false);
    }

    /**
     * {@code steady}: a device repeats its previous check-in's attributes (update, outcome, rollout, ...)
     * until it moves on, which it does at one check-in in 50, as real devices mostly check in again on
     * the update they run; otherwise every check-in draws them anew (the counters' worst case).
     */
    Fleet(int devices, long seed, boolean steady) {
      rnd = new Random(seed);
      clients = new String[devices];
      for (int i = 0; i < devices; i++) {
        clients[i] = new UUID(rnd.nextLong(), rnd.nextLong()).toString();
      }
      epochs = steady ? new int[devices] : null;
    }

    CheckIn next(long at) {
      int d = rnd.nextInt(clients.length);
      String client = rnd.nextInt(100) == 0 ? null : clients[d];
      Random rnd = this.rnd;
      if (epochs != null) {
        if (this.rnd.nextInt(50) == 0) {
          epochs[d]++;
        }
        rnd = new Random(d * 0x9E3779B97F4A7C15L + epochs[d]);
      }
      String platform = (d & 1) == 0 ? "ios" : "android";
      int ch = d % 20;
      String channel = ch < 14 ? "production" : ch < 19 ? "staging" : null;
      String embedded = CheckInScenario.embedded(platform);
      String latest = CheckInScenario.u2(platform);
      int r = rnd.nextInt(100);
      String current = r < 30 ? embedded : r < 90 ? latest : CheckInScenario.u1(platform);
      boolean serve = !latest.equals(current) && rnd.nextInt(100) < 60;
      List<String> failed = rnd.nextInt(100) < 3 ? List.of(latest) : List.of();
      return CheckIn.builder()
          .checkInId("b-" + (seq++))
          .appId("bench-app")
          .platform(platform)
          .runtimeVersion("1.0.0")
          .channel(channel)
          .clientId(client)
          .currentUpdateId(current)
          .embeddedUpdateId(embedded)
          .failedUpdateIds(failed)
          .outcome(serve ? CheckIn.OUTCOME_UPDATE : CheckIn.OUTCOME_NO_UPDATE)
          .reason(serve ? CheckIn.REASON_NEW_UPDATE : CheckIn.REASON_ALREADY_LATEST)
          .branch(channel == null ? "main" : channel)
          .inBranchRollout(rnd.nextInt(10) == 0)
          .rolloutBucket(serve ? rnd.nextInt(10_000) : null)
          .servedUpdateId(serve ? latest : null)
          .servedGroupId(serve ? "group-u2" : null)
          // drawn in the same order as ever unless steady; a fatal error is never steady
          .fatalError(this.rnd.nextInt(500) == 0 ? "Error: boom" : null)
          .atEpochMillis(at)
          .edgeId("edge-" + (d % 3))
          .build();
    }
  }

  /** Every committed check-in's end-to-end lag, in milliseconds. */
  static final class LatencyRecorder implements IngestLoop.CommitListener {
    private long[] values = new long[1 << 20];
    private int n;
    private volatile boolean recording;

    synchronized void reset(boolean record) {
      if (record) {
        n = 0;
      }
      recording = record;
    }

    @Override
    public synchronized void committed(long commitMillis, long[] checkInTimes) {
      if (!recording) {
        return;
      }
      if (n + checkInTimes.length > values.length) {
        values = Arrays.copyOf(values, Math.max(values.length * 2, n + checkInTimes.length));
      }
      for (long t : checkInTimes) {
        values[n++] = commitMillis - t;
      }
    }

    synchronized String summary() {
      if (n == 0) {
        return "no samples";
      }
      long[] v = Arrays.copyOf(values, n);
      Arrays.sort(v);
      return String.format(Locale.ROOT, "n=%d p50=%d ms p90=%d ms p99=%d ms max=%d ms", n, v[n / 2], v[(int) (n * 0.9)],
          v[(int) Math.min(n - 1, n * 0.99)], v[n - 1]);
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
