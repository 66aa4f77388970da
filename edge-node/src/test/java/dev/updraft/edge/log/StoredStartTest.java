package dev.updraft.edge.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.StoredImage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An edge started from its stored image holds what the edge that stored it held: the records of the file
 * fold into the same image as when they were read from Kafka, the image waits (not ready) for Kafka or for
 * {@code --stored-image-after}, its offsets and age are the file's, and its events are not counted as replayed.
 */
class StoredStartTest {
  static final String TOPIC = "updraft.events";
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  static UpdateGroup group(String name) {
    String body = "{\"id\":\"" + name + "\",\"runtimeVersion\":\"1.0.0\"}";
    return new UpdateGroup(name, UpdateGroup.KIND_UPDATE, "main", "1.0.0", null, null, null, null, null,
        List.of(new PlatformUpdate("ios", name + "-ios", "2026-01-01T00:00:00.000Z", body, null, null, List.of())));
  }

  static List<StoredImage.EventRecord> records() {
    List<EventPayload> payloads = List.of(new EventPayload.AppCreated("Demo"), new EventPayload.UpdatePublished(group("g1")),
        new EventPayload.ChannelMapped("production", "main", null), new EventPayload.UpdatePublished(group("g2")));
    List<StoredImage.EventRecord> out = new ArrayList<>();
    long seq = 0;
    for (EventPayload p : payloads) {
      seq++;
      EventEnvelope e = EventEnvelope.of("demo", seq, T0.plusSeconds(seq), "test", p);
      out.add(new StoredImage.EventRecord(0, seq - 1, "demo".getBytes(StandardCharsets.UTF_8), EventCodec.encode(e)));
    }
    out.add(new StoredImage.EventRecord(0, 4, null, "not an event".getBytes(StandardCharsets.UTF_8)));
    return out;
  }

  @Test
  void theStoredRecordsFoldIntoTheImageTheirWriterHeldAndItWaitsForKafka(@TempDir Path dir) throws IOException {
    List<StoredImage.EventRecord> records = records();
    LiveImage first = new LiveImage();
    RecordFolder direct = new RecordFolder(TOPIC, first, new SimpleMeterRegistry());
    ImageDelta d = new ImageDelta(ResolveImage.EMPTY);
    for (StoredImage.EventRecord r : records) {
      direct.fold(d, new ConsumerRecord<>(TOPIC, r.partition(), r.offset(), r.key(), r.value()));
    }
    ResolveImage expected = d.apply();

    long heardAt = System.currentTimeMillis() - 60_000;
    new StoredImage(System.currentTimeMillis(), heardAt, TOPIC, Map.of(0, 5L, 1, 0L), Map.of(), records).write(dir.resolve(StoredImage.FILE_NAME));
    LiveImage live = new LiveImage(Duration.ofSeconds(30));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ImageStore store = new ImageStore(dir, TOPIC, Duration.ofSeconds(30), registry);
    StoredImage restored = StoredStart.restore(store, null, new RecordFolder(TOPIC, live, registry), live, TOPIC);

    assertThat(restored).isNotNull();
    ResolveImage image = live.image();
    assertThat(image.appCount()).isEqualTo(1).isEqualTo(expected.appCount());
    assertThat(image.groupCount()).isEqualTo(2).isEqualTo(expected.groupCount());
    assertThat(image.bytes()).isEqualTo(expected.bytes());
    assertThat(image.app("demo").lastSequence()).isEqualTo(4);
    assertThat(live.ready()).as("served only once Kafka did not answer for --stored-image-after").isFalse();
    assertThat(live.fromStore()).isTrue();
    assertThat(live.offsets()).isEqualTo(Map.of(0, 5L, 1, 0L));
    assertThat(live.eventsRestored()).isEqualTo(5);
    assertThat(live.eventsReplayed()).as("the stored events are not counted as read from Kafka").isZero();
    assertThat(live.stalenessNanos() / 1e9).as("its age counts from when its writer last heard from Kafka").isGreaterThanOrEqualTo(60);
    assertThat(live.tooStale()).as("older than --max-stale 30s").isTrue();

    live.markReadyFromStore();
    assertThat(live.servingStored()).isTrue();
    assertThat(live.caughtUp()).isFalse();
    live.markReady();
    assertThat(live.servingStored()).isFalse();
  }

  @Test
  void withoutAFileTheEdgeStartsFromKafka(@TempDir Path dir) {
    LiveImage live = new LiveImage();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ImageStore store = new ImageStore(dir, TOPIC, Duration.ofSeconds(30), registry);
    assertThat(StoredStart.restore(store, null, new RecordFolder(TOPIC, live, registry), live, TOPIC)).isNull();
    assertThat(live.image().appCount()).isZero();
    assertThat(live.fromStore()).isFalse();
  }

  @Test
  void anEmptyDataDirStartsFromTheStoragesImageTooOldForMaxStaleAndKeepsItOnDisk(@TempDir Path dir) throws Exception {
    Path storage = dir.resolve("storage");
    java.nio.file.Files.createDirectories(storage);
    long heardAt = System.currentTimeMillis() - 60_000;
    dev.updraft.events.ImageSeal seal = dev.updraft.events.ImageSeal.of(java.util.Base64.getEncoder().encodeToString(new byte[32]), "k");
    StoredImage written = new StoredImage(heardAt, heardAt, TOPIC, Map.of(0, 5L), Map.of(), records());
    StorageImageTest.write(storage, written, seal);
    LiveImage live = new LiveImage(Duration.ofSeconds(30));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Path data = dir.resolve("data");
    ImageStore store = new ImageStore(data, TOPIC, Duration.ofSeconds(30), registry);
    StorageImage source = new StorageImage(ImageFetch.of(storage.toString(), null, null), seal, registry);

    assertThat(StoredStart.restore(store, source, new RecordFolder(TOPIC, live, registry), live, TOPIC)).isNotNull();
    assertThat(live.image().groupCount()).isEqualTo(2);
    assertThat(live.fromStorage()).isTrue();
    assertThat(live.offsets()).isEqualTo(Map.of(0, 5L));
    assertThat(live.stalenessNanos() / 1e9).as("its age counts from when the control plane read the log").isGreaterThanOrEqualTo(60);
    assertThat(live.tooStale()).as("--max-stale applies as to a data-dir image").isTrue();
    store.saveIfDue();
    assertThat(StoredImage.read(data.resolve(StoredImage.FILE_NAME))).as("kept under --data-dir from then on")
        .isInstanceOf(StoredImage.Read.Loaded.class);
  }
}
