package dev.updraft.controlplane.patches;

import dev.updraft.common.AcceptEncoding;
import dev.updraft.testing.Fixtures;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Bytes per updated device and the cost of the patch job, for docs/benchmarks (not a test: run it on a
 * quiet machine, e.g. {@code ./mvnw -pl control-plane -am test-compile} then
 * {@code java -Xmx512m -cp <test classpath> dev.updraft.controlplane.patches.PatchBench}).
 *
 * <p>For the fixture's iOS and Android bundles (update 1 to update 2) and a synthetic 10 MB bundle with
 * 1 % of it changed, prints per case: the full bundle identity, gzip, zstd and br sizes (what
 * {@link Encodings} stores), the bsdiff patch size ({@link BundleDiff}), whether the job keeps it (at
 * most half the gzip size), the diff time (best of 3) and the heap the diff needed (peak of the heap
 * pools during the diff minus what was in use before it).
 */
public final class PatchBench {
  private PatchBench() {}

  private static final com.fasterxml.jackson.databind.node.ArrayNode ROWS =
      com.fasterxml.jackson.databind.json.JsonMapper.builder().build().createArrayNode();

  /** {@code args[0]}, when given: where to write the run's figures as JSON (for docs/benchmarks/). */
  public static void main(String[] args) throws Exception {
    Path tmp = Files.createTempDirectory("patch-bench");
    System.out.println("| bundle | identity | gzip | zstd | br | patch | kept | diff ms (best of 3) | diff heap MB |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (String platform : List.of("ios", "android")) {
      run("fixture " + platform, bundle(Fixtures.update1(), platform), bundle(Fixtures.update2(), platform), tmp);
    }
    byte[] base = synthetic(10 * 1024 * 1024, 57);
    run("synthetic 10 MB, 1 % changed", base, edited(base, 0.01, 58), tmp);
    System.out.println();
    System.out.println("java " + System.getProperty("java.version") + ", max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024)
        + " MB, " + Runtime.getRuntime().availableProcessors() + " cores");
    if (args.length > 0) {
      com.fasterxml.jackson.databind.node.ObjectNode json = ROWS.objectNode();
      json.put("bench", "bundle-patches").put("commit", dev.updraft.testing.SourceTree.describe()).put("startedAt", java.time.Instant.now().toString()).put("java", System.getProperty("java.version"))
          .put("maxHeapMb", Runtime.getRuntime().maxMemory() / (1024 * 1024)).put("cores", Runtime.getRuntime().availableProcessors());
      json.set("bundles", ROWS);
      Files.writeString(Path.of(args[0]), json.toPrettyString() + "\n");
      System.out.println("summary written to " + args[0]);
    }
  }

  private static void run(String name, byte[] base, byte[] target, Path tmp) throws Exception {
    Path f = Files.write(tmp.resolve("target"), target);
    long gzip = size(f, AcceptEncoding.GZIP, tmp);
    long zstd = size(f, AcceptEncoding.ZSTD, tmp);
    long br = Encodings.brotliAvailable() ? size(f, AcceptEncoding.BR, tmp) : -1;
    long best = Long.MAX_VALUE;
    byte[] patch = null;
    long heap = 0;
    for (int i = 0; i < 3; i++) {
      System.gc();
      long before = used();
      resetPeaks();
      long t0 = System.nanoTime();
      patch = BundleDiff.diff(base, target);
      best = Math.min(best, System.nanoTime() - t0);
      heap = Math.max(heap, peak() - before);
    }
    if (!Arrays.equals(BundleDiff.apply(base, patch), target)) {
      throw new IllegalStateException("the patch does not rebuild the target for " + name);
    }
    System.out.printf("| %s | %d | %d | %d | %s | %d | %s | %d | %d |%n", name, target.length, gzip, zstd, br < 0 ? "n/a" : Long.toString(br),
        patch.length, patch.length * 2L <= gzip ? "yes" : "no", best / 1_000_000, heap / (1024 * 1024));
    ROWS.addObject().put("bundle", name).put("identity", target.length).put("gzip", gzip).put("zstd", zstd).put("br", br)
        .put("patch", patch.length).put("kept", patch.length * 2L <= gzip).put("diffMsBestOf3", best / 1_000_000)
        .put("diffHeapMb", heap / (1024 * 1024));
  }

  private static long size(Path f, String encoding, Path tmp) throws IOException {
    Encodings.Encoded e = Encodings.encodeOne(f, encoding, tmp);
    Files.deleteIfExists(e.file());
    return e.size();
  }

  static byte[] bundle(Path dist, String platform) throws IOException {
    try (Stream<Path> s = Files.list(dist.resolve("_expo/static/js").resolve(platform))) {
      return Files.readAllBytes(s.filter(p -> p.toString().endsWith(".hbc")).findFirst().orElseThrow());
    }
  }

  /** Bundle-like bytes: identifiers and punctuation from a small vocabulary, so that they compress as code does. */
  static byte[] synthetic(int size, long seed) {
    String[] words = {"function", "return", "const", "let", "this", "props", "state", "render", "View", "Text", "style", "=>", "{",
        "}", "(", ")", ";", ",", ".", "=", "null", "true", "false", "__d", "_$$_REQUIRE", "exports", "module", "useState", "useEffect"};
    SplittableRandom r = new SplittableRandom(seed);
    byte[] out = new byte[size];
    int i = 0;
    while (i < size) {
      String w = r.nextInt(10) == 0 ? Integer.toHexString(r.nextInt()) : words[r.nextInt(words.length)];
      for (int j = 0; j < w.length() && i < size; j++) {
        out[i++] = (byte) w.charAt(j);
      }
      if (i < size) {
        out[i++] = (byte) (r.nextInt(8) == 0 ? '\n' : ' ');
      }
    }
    return out;
  }

  /** {@code base} with a share of it rewritten in small runs (a new release of the same app). */
  static byte[] edited(byte[] base, double share, long seed) {
    byte[] out = base.clone();
    byte[] noise = synthetic(base.length, seed);
    SplittableRandom r = new SplittableRandom(seed);
    long todo = (long) (base.length * share);
    while (todo > 0) {
      int len = 16 + r.nextInt(240);
      int at = r.nextInt(base.length - len);
      System.arraycopy(noise, at, out, at, len);
      todo -= len;
    }
    return out;
  }

  private static long used() {
    long n = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        n += p.getUsage().getUsed();
      }
    }
    return n;
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  private static long peak() {
    long n = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        n += p.getPeakUsage().getUsed();
      }
    }
    return n;
  }
}
