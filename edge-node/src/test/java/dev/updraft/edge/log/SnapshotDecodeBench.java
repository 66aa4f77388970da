package dev.updraft.edge.log;

import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.SnapshotSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What an edge's start spends on the snapshots, phase by phase, in a JVM of its own (the first round is
 * what a starting edge pays: cold JIT), against a running Kafka that holds {@code updraft.snapshots}.
 * Not a test. Usage: {@code java -cp … dev.updraft.edge.log.SnapshotDecodeBench BOOTSTRAP [TOPIC] [THREADS] [ROUNDS]};
 * THREADS 1 decodes and builds on the calling thread.
 */
public final class SnapshotDecodeBench {
  private SnapshotDecodeBench() {}

  /** THREADS 0: the bytes of the chunks and where one thread's decode goes (gunzip, then JSON). */
  private static void breakdown(String bootstrap, String topic) throws Exception {
    java.util.Map<String, byte[]> chunks = new java.util.TreeMap<>();
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("isolation.level", "read_committed");
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    dev.updraft.common.TopicToEnd.read(p, topic, java.time.Duration.ofMinutes(1), (k, v) -> {
      if (dev.updraft.events.SnapshotCodec.isChunkKey(k) && v != null) {
        chunks.put(k, v);
      }
    });
    long gz = 0;
    long json = 0;
    long tGunzip = 0;
    long tJson = 0;
    for (java.util.Map.Entry<String, byte[]> c : chunks.entrySet()) {
      long a = System.nanoTime();
      byte[] raw;
      try (java.io.InputStream in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(c.getValue()))) {
        raw = in.readAllBytes();
      } catch (java.io.IOException e) {
        continue; // a later chunk of a split body: not gzip on its own
      }
      long b = System.nanoTime();
      dev.updraft.events.SnapshotCodec.decodeJson(c.getKey().substring(0, c.getKey().indexOf('/')), raw);
      long d = System.nanoTime();
      gz += c.getValue().length;
      json += raw.length;
      tGunzip += b - a;
      tJson += d - b;
    }
    System.out.printf("round: %d chunks, %d gzip bytes, %d JSON bytes; gunzip %d ms, JSON %d ms%n", chunks.size(), gz, json,
        tGunzip / 1_000_000, tJson / 1_000_000);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args.length > 1 ? args[1] : "updraft.snapshots";
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : Runtime.getRuntime().availableProcessors();
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      for (int r = 0; r < rounds; r++) {
        if (threads == 0) {
          breakdown(bootstrap, topic);
          continue;
        }
        long t0 = System.nanoTime();
        SnapshotSet set = SnapshotLoader.read(bootstrap, dev.updraft.common.KafkaClientConfig.none(), topic, "snapshot-decode-bench",
            threads <= 1 ? null : pool, null);
        long t1 = System.nanoTime();
        SnapshotSet.Result result = threads <= 1 ? set.result() : set.result(pool);
        long t2 = System.nanoTime();
        ResolveImage image = ImageDelta.loadAll(ResolveImage.EMPTY, result.snapshots().values(), threads <= 1 ? Runnable::run : pool);
        long t3 = System.nanoTime();
        System.out.printf("round %d threads %d: read %d ms, decode %d ms, build %d ms (apps %d, groups %d, bytes %d)%n", r, threads,
            (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, image.appCount(), image.groupCount(), image.bytes());
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
