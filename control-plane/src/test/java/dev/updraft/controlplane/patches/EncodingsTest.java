package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import com.github.luben.zstd.ZstdInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EncodingsTest {
  @Test
  void bestAndFastCopiesDecodeToTheSourceAndBestIsNoLarger(@TempDir Path dir) throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      text.append("function f").append(i % 97).append("(a, b) { return a * ").append(i % 13).append(" + b; }\n");
    }
    byte[] source = text.toString().getBytes(StandardCharsets.UTF_8);
    Path file = Files.write(dir.resolve("bundle.js"), source);
    List<Encodings.Encoded> best = Encodings.encode(file, source.length, dir, false);
    List<Encodings.Encoded> fast = Encodings.encode(file, source.length, dir, true);
    assertThat(fast).extracting(Encodings.Encoded::encoding).isEqualTo(best.stream().map(Encodings.Encoded::encoding).toList())
        .contains("zstd", "gzip");
    for (int i = 0; i < best.size(); i++) {
      assertThat(decode(best.get(i))).as(best.get(i).encoding()).isEqualTo(source);
      assertThat(decode(fast.get(i))).as(fast.get(i).encoding() + " fast").isEqualTo(source);
      assertThat(best.get(i).size()).as(best.get(i).encoding()).isLessThanOrEqualTo(fast.get(i).size()).isLessThan(source.length);
      assertThat(fast.get(i).size()).isEqualTo(Files.size(fast.get(i).file()));
    }
    // at the best levels zstd and br save bandwidth over gzip, which is why the edge prefers them
    long gzip = best.stream().filter(e -> e.encoding().equals("gzip")).findFirst().orElseThrow().size();
    for (Encodings.Encoded e : best) {
      if (!e.encoding().equals("gzip")) {
        assertThat(e.size()).as("best %s against best gzip (%s bytes)", e.encoding(), gzip).isLessThan(gzip);
      }
    }
  }

  private static byte[] decode(Encodings.Encoded e) throws Exception {
    InputStream raw = Files.newInputStream(e.file());
    try (InputStream in = switch (e.encoding()) {
      case "zstd" -> new ZstdInputStream(raw);
      case "br" -> new BrotliInputStream(raw);
      case "gzip" -> new GZIPInputStream(raw);
      default -> throw new AssertionError(e.encoding());
    }) {
      return in.readAllBytes();
    }
  }
}
