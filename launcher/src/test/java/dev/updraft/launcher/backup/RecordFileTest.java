package dev.updraft.launcher.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A partition's records written and read back exactly; a cut-off or foreign file is refused, not read short. */
class RecordFileTest {
  @TempDir Path dir;

  static final List<RecordFile.Rec> RECORDS = List.of(
      new RecordFile.Rec(0, 1700000000000L, "app-a".getBytes(StandardCharsets.UTF_8), "{\"e\":1}".getBytes(StandardCharsets.UTF_8),
          List.of(new RecordFile.Header("updraft-more", "2".getBytes(StandardCharsets.US_ASCII)), new RecordFile.Header("empty", null))),
      new RecordFile.Rec(7, 1700000000001L, null, null, List.of()),
      new RecordFile.Rec(9, -1, new byte[0], new byte[] {0, (byte) 0xff, 10}, List.of()));

  Path written() throws Exception {
    Path f = dir.resolve("p.records.gz");
    try (RecordFile.Writer w = new RecordFile.Writer(f)) {
      for (RecordFile.Rec r : RECORDS) {
        w.write(r);
      }
    }
    return f;
  }

  static List<RecordFile.Rec> readAll(Path f) throws Exception {
    List<RecordFile.Rec> out = new ArrayList<>();
    try (RecordFile.Reader in = new RecordFile.Reader(f)) {
      for (RecordFile.Rec r = in.next(); r != null; r = in.next()) {
        out.add(r);
      }
    }
    return out;
  }

  @Test
  void shouldReadBackEveryFieldAsWritten() throws Exception {
    List<RecordFile.Rec> back = readAll(written());
    assertThat(back).hasSize(3);
    for (int i = 0; i < RECORDS.size(); i++) {
      RecordFile.Rec a = RECORDS.get(i);
      RecordFile.Rec b = back.get(i);
      assertThat(b.offset()).isEqualTo(a.offset());
      assertThat(b.timestamp()).isEqualTo(a.timestamp());
      assertThat(b.key()).isEqualTo(a.key());
      assertThat(b.value()).isEqualTo(a.value());
      assertThat(b.headers()).hasSameSizeAs(a.headers());
      for (int h = 0; h < a.headers().size(); h++) {
        assertThat(b.headers().get(h).key()).isEqualTo(a.headers().get(h).key());
        assertThat(b.headers().get(h).value()).isEqualTo(a.headers().get(h).value());
      }
    }
  }

  @Test
  void shouldRefuseAFileCutOffBeforeItsEndMark() throws Exception {
    byte[] raw = gunzip(Files.readAllBytes(written()));
    Path cut = dir.resolve("cut.records.gz");
    Files.write(cut, gzip(Arrays.copyOf(raw, raw.length - 9))); // without the end mark and count
    assertThatThrownBy(() -> readAll(cut)).hasMessageContaining("without its end mark (cut off)");
  }

  @Test
  void shouldRefuseAFileThatIsNotARecordFile() throws Exception {
    Path other = dir.resolve("other.gz");
    Files.write(other, gzip("hello, world, not records".getBytes(StandardCharsets.US_ASCII)));
    assertThatThrownBy(() -> readAll(other)).hasMessageContaining("not an Updraft record file");
  }

  static byte[] gunzip(byte[] gz) throws Exception {
    return new GZIPInputStream(new ByteArrayInputStream(gz)).readAllBytes();
  }

  static byte[] gzip(byte[] raw) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(raw);
    }
    return out.toByteArray();
  }
}
