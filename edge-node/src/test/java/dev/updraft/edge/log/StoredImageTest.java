package dev.updraft.edge.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge's stored image format: the golden file of version 1 keeps decoding to the value written out here
 * (and this build writes exactly its bytes), a file damaged anywhere or of a later version is refused with a
 * reason instead of being used or throwing, and the store writes atomically and falls back on a bad file.
 */
class StoredImageTest {

  /** What {@code golden-edge-image/v1/edge-image.bin} holds. */
  static StoredImage goldenV1() {
    Map<String, byte[]> snapshots = new LinkedHashMap<>();
    snapshots.put("demo", "{\"manifest\":1}".getBytes(StandardCharsets.UTF_8));
    snapshots.put("demo/chunk/0", new byte[] {0, 1, 2, (byte) 0xff});
    return new StoredImage(1_780_000_000_000L, 1_779_999_999_000L, "updraft.events", Map.of(0, 12L, 1, 0L, 2, 7L), snapshots,
        List.of(new StoredImage.EventRecord(0, 10, "demo".getBytes(StandardCharsets.UTF_8), "{\"e\":1}".getBytes(StandardCharsets.UTF_8)),
            new StoredImage.EventRecord(2, 6, null, null),
            new StoredImage.EventRecord(0, 11, "demo".getBytes(StandardCharsets.UTF_8), new byte[0])));
  }

  private static byte[] golden() throws IOException {
    try (InputStream in = StoredImageTest.class.getResourceAsStream("/golden-edge-image/v1/edge-image.bin")) {
      assertThat(in).as("golden-edge-image/v1/edge-image.bin on the test class path").isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void goldenV1FileDecodesToItsValueAndThisBuildWritesItsBytes() throws IOException {
    byte[] bytes = golden();
    StoredImage.Read read = StoredImage.decode(bytes);
    assertThat(read).isInstanceOf(StoredImage.Read.Loaded.class);
    StoredImage image = ((StoredImage.Read.Loaded) read).image();
    StoredImage expected = goldenV1();
    assertThat(image.writtenAtMillis()).isEqualTo(1_780_000_000_000L);
    assertThat(image.heardAtMillis()).isEqualTo(1_779_999_999_000L);
    assertThat(image.topic()).isEqualTo("updraft.events");
    assertThat(image.nextOffsets()).isEqualTo(Map.of(0, 12L, 1, 0L, 2, 7L));
    assertThat(image.snapshotRecords().keySet()).containsExactly("demo", "demo/chunk/0");
    assertThat(image.snapshotRecords().get("demo/chunk/0")).containsExactly(0, 1, 2, 0xff);
    assertThat(image.events()).isEqualTo(expected.events());
    assertThat(image.events().get(1).key()).isNull();
    assertThat(image.events().get(1).value()).isNull();
    assertThat(image.events().get(2).value()).isEmpty();
    assertThat(expected.encode()).as("version 1 is frozen: this build writes the golden bytes").isEqualTo(bytes);
  }

  @Test
  void goldenFileStartsWithItsMagicAndVersionAndEndsWithTheChecksumOfTheRest() throws IOException {
    byte[] bytes = golden();
    assertThat(new String(bytes, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("UPDRAFTI");
    assertThat(ByteBuffer.wrap(bytes, 8, 4).getInt()).isEqualTo(1);
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 8);
    assertThat(ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong()).isEqualTo(crc.getValue());
  }

  @Test
  void aLaterVersionIsRefusedAsUnknownVersion() throws IOException {
    byte[] bytes = golden();
    ByteBuffer.wrap(bytes).putInt(8, 2);
    StoredImage.Read read = StoredImage.decode(bytes);
    assertThat(read).isInstanceOf(StoredImage.Read.Unusable.class);
    assertThat(((StoredImage.Read.Unusable) read).reason()).isEqualTo("unknown-version");
    assertThat(((StoredImage.Read.Unusable) read).detail()).contains("format version 2");
  }

  @Test
  void everyTruncationAndAnyChangedByteIsRefusedAsCorruptNeverThrown() throws IOException {
    byte[] bytes = golden();
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(bytes, n);
      assertThat(StoredImage.decode(cut)).as("the first %d of %d bytes", n, bytes.length).isInstanceOf(StoredImage.Read.Unusable.class);
    }
    long seed = new Random().nextLong();
    Random r = new Random(seed);
    for (int i = 0; i < 2000; i++) {
      byte[] changed = bytes.clone();
      int at = r.nextInt(changed.length);
      int flip = 1 + r.nextInt(255);
      changed[at] ^= (byte) flip;
      StoredImage.Read read = StoredImage.decode(changed);
      assertThat(read).as("seed %d: byte %d xor %d", seed, at, flip).isInstanceOf(StoredImage.Read.Unusable.class);
      if (at >= 12) {
        assertThat(((StoredImage.Read.Unusable) read).reason()).as("seed %d: byte %d xor %d", seed, at, flip).isEqualTo("corrupt");
      }
    }
    assertThat(StoredImage.decode("not an image at all".getBytes(StandardCharsets.UTF_8))).isInstanceOf(StoredImage.Read.Unusable.class);
  }

  @Test
  void aLargeImageRoundTripsThroughItsFile(@TempDir Path dir) throws IOException {
    Random r = new Random();
    Map<String, byte[]> snapshots = new LinkedHashMap<>();
    for (int i = 0; i < 50; i++) {
      byte[] v = new byte[r.nextInt(100_000)];
      r.nextBytes(v);
      snapshots.put("app-" + i, v);
    }
    List<StoredImage.EventRecord> events = new java.util.ArrayList<>();
    for (int i = 0; i < 500; i++) {
      byte[] v = new byte[r.nextInt(5000)];
      r.nextBytes(v);
      events.add(new StoredImage.EventRecord(i % 3, i, ("app-" + (i % 7)).getBytes(StandardCharsets.UTF_8), v));
    }
    StoredImage image = new StoredImage(5, 4, "p.updraft.events", Map.of(0, 167L, 1, 166L, 2, 166L), snapshots, events);
    Path file = dir.resolve(StoredImage.FILE_NAME);
    image.write(file);
    StoredImage back = ((StoredImage.Read.Loaded) StoredImage.read(file)).image();
    assertThat(back.events()).isEqualTo(events);
    assertThat(back.nextOffsets()).isEqualTo(image.nextOffsets());
    assertThat(back.snapshotRecords().keySet()).isEqualTo(new java.util.TreeSet<>(snapshots.keySet()));
    for (String k : snapshots.keySet()) {
      assertThat(back.snapshotRecords().get(k)).isEqualTo(snapshots.get(k));
    }
    assertThat(Files.list(dir).map(p -> p.getFileName().toString()).toList()).as("no temporary file left").containsExactly(StoredImage.FILE_NAME);
  }

  @Test
  void aStoreWithADamagedOrForeignFileStartsFromKafkaAndCountsWhy(@TempDir Path dir) throws IOException {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ImageStore store = new ImageStore(dir, "updraft.events", Duration.ofSeconds(30), registry);
    assertThat(store.load()).as("no file").isNull();
    Files.write(dir.resolve(StoredImage.FILE_NAME), "garbage".getBytes(StandardCharsets.UTF_8));
    assertThat(store.load()).isNull();
    byte[] later = golden();
    ByteBuffer.wrap(later).putInt(8, 99);
    Files.write(dir.resolve(StoredImage.FILE_NAME), later);
    assertThat(store.load()).isNull();
    Files.write(dir.resolve(StoredImage.FILE_NAME), golden());
    assertThat(new ImageStore(dir, "other.updraft.events", Duration.ofSeconds(30), registry).load()).as("another topic's image").isNull();
    assertThat(store.load()).isNotNull();
    assertThat(registry.get("updraft.edge.image.store.fallbacks").tag("reason", "corrupt").counter().count()).isEqualTo(1);
    assertThat(registry.get("updraft.edge.image.store.fallbacks").tag("reason", "unknown-version").counter().count()).isEqualTo(1);
    assertThat(registry.get("updraft.edge.image.store.fallbacks").tag("reason", "other-topic").counter().count()).isEqualTo(1);
  }

  @Test
  void theStoreWritesOnlyWholeImagesAndTheirRecords(@TempDir Path dir) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ImageStore store = new ImageStore(dir, "updraft.events", Duration.ofSeconds(30), registry);
    store.saveNow();
    assertThat(StoredImage.read(store.file())).as("nothing whole yet: nothing written").isInstanceOf(StoredImage.Read.Absent.class);
    store.snapshotRecords(Map.of("a", new byte[] {1}));
    store.folded(new org.apache.kafka.clients.consumer.ConsumerRecord<>("updraft.events", 0, 5, new byte[] {7}, new byte[] {8}));
    store.whole(Map.of(0, 6L), 1234);
    store.folded(new org.apache.kafka.clients.consumer.ConsumerRecord<>("updraft.events", 0, 6, new byte[] {7}, new byte[] {9}));
    store.saveNow();
    StoredImage saved = ((StoredImage.Read.Loaded) StoredImage.read(store.file())).image();
    assertThat(saved.events()).as("the record after the last whole point is not in the file")
        .containsExactly(new StoredImage.EventRecord(0, 5, new byte[] {7}, new byte[] {8}));
    assertThat(saved.nextOffsets()).isEqualTo(Map.of(0, 6L));
    assertThat(saved.heardAtMillis()).isEqualTo(1234);
    assertThat(registry.get("updraft.edge.image.saves").tag("outcome", "ok").counter().count()).isEqualTo(1);
  }

  @Test
  void anUnchangedImageIsWrittenAgainOnlyWhenItsAgeMovedTenIntervals(@TempDir Path dir) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ImageStore store = new ImageStore(dir, "updraft.events", Duration.ofSeconds(1), registry);
    store.snapshotRecords(Map.of());
    store.whole(Map.of(0, 0L), 1_000);
    store.saveIfDue();
    store.saveIfDue();
    store.whole(Map.of(0, 0L), 1_000 + 9_999);
    store.saveIfDue();
    assertThat(registry.get("updraft.edge.image.saves").tag("outcome", "ok").counter().count()).as("unchanged, 9.999 s younger").isEqualTo(1);
    assertThat(((StoredImage.Read.Loaded) StoredImage.read(store.file())).image().heardAtMillis()).isEqualTo(1_000);
    store.whole(Map.of(0, 0L), 1_000 + 10_000);
    store.saveIfDue();
    assertThat(registry.get("updraft.edge.image.saves").tag("outcome", "ok").counter().count()).isEqualTo(2);
    assertThat(((StoredImage.Read.Loaded) StoredImage.read(store.file())).image().heardAtMillis()).isEqualTo(11_000);
    store.whole(Map.of(0, 1L), 11_001);
    store.saveIfDue();
    assertThat(registry.get("updraft.edge.image.saves").tag("outcome", "ok").counter().count()).as("changed offsets").isEqualTo(3);
  }

  /** Writes the golden file (run by hand when a new version is added: never overwrite a released one). */
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    Files.createDirectories(out.getParent());
    Files.write(out, goldenV1().encode());
  }
}
