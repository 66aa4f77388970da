package dev.updraft.edge.assets;

import com.aayushatharva.brotli4j.encoder.Encoder;
import com.github.luben.zstd.Zstd;
import dev.updraft.common.AcceptEncoding;
import dev.updraft.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * What each way of compressing the first downloads after a publish costs, on the fixture's bundles
 * (docs/benchmarks/bundle-patches.md, "Compressed from the first download"): the edge's interim copy (zstd 3,
 * br 5, gzip 6: what the first request waits for, once per edge, launch asset and encoding) against the
 * control plane's stored copies at the best levels (zstd 19, br 11, gzip 9: what a publish would wait for
 * if they were made before the update became visible). Prints, per bundle, encoding and level, the size,
 * the first (cold) time and the best of 5. Not a test: run it by hand.
 */
public final class EncodeCostBench {
  private EncodeCostBench() {}

  public static void main(String[] args) throws Exception {
    System.out.printf(Locale.ROOT, "EncodeCostBench: %s, %d cores, max heap %d MB%n", System.getProperty("java.vm.name") + " "
        + System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
    System.out.println("bundle,encoding,level,bytes,first_ms,best_of_5_ms");
    double[] interimFirst = new double[1];
    double[] bestSum = new double[1];
    for (String platform : List.of("ios", "android")) {
      byte[] in = Files.readAllBytes(bundle(Fixtures.update2(), platform));
      for (String enc : List.of(AcceptEncoding.ZSTD, AcceptEncoding.BR, AcceptEncoding.GZIP)) {
        double[] fast = run(platform, in, enc, true);
        double[] best = run(platform, in, enc, false);
        interimFirst[0] = Math.max(interimFirst[0], fast[0]);
        bestSum[0] += best[1];
      }
    }
    System.out.printf(Locale.ROOT, "summary: slowest cold interim copy %.1f ms; all best-level copies of both bundles %.1f ms (best of 5 each)%n",
        interimFirst[0], bestSum[0]);
  }

  /** {first ms, best-of-5 ms}; prints one line. */
  private static double[] run(String platform, byte[] in, String enc, boolean interim) throws IOException {
    int level = interim ? interimLevel(enc) : bestLevel(enc);
    long t0 = System.nanoTime();
    byte[] out = interim ? InterimEncodings.encode(in, enc) : best(in, enc);
    double first = (System.nanoTime() - t0) / 1e6;
    double best = Double.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      long t = System.nanoTime();
      byte[] again = interim ? InterimEncodings.encode(in, enc) : best(in, enc);
      best = Math.min(best, (System.nanoTime() - t) / 1e6);
      if (again.length != out.length) {
        throw new IllegalStateException("encoding is not deterministic: " + again.length + " vs " + out.length);
      }
    }
    System.out.printf(Locale.ROOT, "%s,%s,%d,%d,%.1f,%.1f%n", platform, enc, level, out.length, first, best);
    return new double[] {first, best};
  }

  private static int interimLevel(String enc) {
    return switch (enc) {
      case AcceptEncoding.ZSTD -> InterimEncodings.ZSTD_LEVEL;
      case AcceptEncoding.BR -> InterimEncodings.BR_QUALITY;
      default -> InterimEncodings.GZIP_LEVEL;
    };
  }

  private static int bestLevel(String enc) {
    return switch (enc) {
      case AcceptEncoding.ZSTD -> 19;
      case AcceptEncoding.BR -> 11;
      default -> 9;
    };
  }

  /** The control plane's best levels (control-plane Encodings: zstd 19, br 11 window 24, gzip 9). */
  private static byte[] best(byte[] in, String enc) throws IOException {
    switch (enc) {
      case AcceptEncoding.ZSTD:
        return Zstd.compress(in, 19);
      case AcceptEncoding.BR:
        return Encoder.compress(in, new Encoder.Parameters().setQuality(11).setWindow(24));
      default:
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes, 64 * 1024) {
          {
            def.setLevel(9);
          }
        }) {
          gz.write(in);
        }
        return bytes.toByteArray();
    }
  }

  private static Path bundle(Path dist, String platform) throws IOException {
    try (Stream<Path> s = Files.list(dist.resolve("_expo/static/js").resolve(platform))) {
      return s.filter(p -> p.toString().endsWith(".hbc")).findFirst().orElseThrow();
    }
  }
}
