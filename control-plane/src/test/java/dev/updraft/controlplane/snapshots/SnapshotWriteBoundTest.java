package dev.updraft.controlplane.snapshots;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Many apps due at once (a bulk import, a first start over a long log) are written a bounded number of
 * bytes at a time, never all in one transaction held in memory, and every one of them is written in the end.
 */
class SnapshotWriteBoundTest {
  static final Instant T0 = Instant.parse("2026-12-07T05:00:00Z");
  static final int APPS = 40;

  /** Each app: created, then one publish of a body of {@code bodyChars} random characters (incompressible). */
  static ControlState fold(Snapshotter snaps, int bodyChars) {
    ControlState s = ControlState.EMPTY;
    java.util.Random r = new java.util.Random();
    long offset = 0;
    for (int a = 0; a < APPS; a++) {
      String app = String.format("app-%03d", a);
      StringBuilder body = new StringBuilder("{\"id\":\"u").append(a).append("\",\"pad\":\"");
      for (int i = 0; i < bodyChars; i++) {
        body.append((char) ('a' + r.nextInt(26)));
      }
      body.append("\"}");
      PlatformUpdate p = new PlatformUpdate("ios", "u" + a, "2026-12-07T05:00:00.000Z", body.toString(), null, "k", List.of("k"));
      List<EventPayload> events = List.of(new AppCreated("App " + a),
          new UpdatePublished(new UpdateGroup("g" + a, UpdateGroup.KIND_UPDATE, "main", "1", "m", "abc", "idem-" + a, null, null, List.of(p))));
      for (int i = 0; i < events.size(); i++) {
        EventPayload e = events.get(i);
        s = StateFold.apply(s, new EventEnvelope(UUID.randomUUID(), e.type(), EventType.CURRENT_SCHEMA_VERSION, app, i + 1, T0, "tok_1", e));
        snaps.folded(app, 0, offset++, T0, false);
      }
    }
    return s;
  }

  static Snapshotter snapshotter(long maxWriteBytes) {
    return new Snapshotter("127.0.0.1:9", KafkaClientConfig.none(), "updraft.snapshots", new SnapshotPolicy(1, Duration.ofMinutes(10)),
        new SimpleMeterRegistry(), maxWriteBytes);
  }

  /** The app ids whose manifests a write carries, and the bytes of its chunks. */
  record Write(Set<String> apps, long chunkBytes) {
    static Write of(List<ProducerRecord<String, byte[]>> records) {
      Set<String> apps = new LinkedHashSet<>();
      long bytes = 0;
      for (ProducerRecord<String, byte[]> r : records) {
        if (r.key().startsWith("app-") && !r.key().contains("/")) {
          apps.add(r.key());
        } else if (r.key().contains("/") && r.value() != null) {
          bytes += r.value().length;
        }
      }
      return new Write(apps, bytes);
    }
  }

  @Test
  void manyAppsDueAreWrittenAFewAtATimeAndAllInTheEnd() throws Exception {
    long bound = 60_000; // each app's snapshot is over 20,000 bytes (its body does not compress below 20,000 * log2(26) / 8)
    Snapshotter snaps = snapshotter(bound);
    ControlState s = fold(snaps, 40_000);
    List<Write> writes = new ArrayList<>();
    Set<String> written = new LinkedHashSet<>();
    for (int i = 0; i < APPS + 1; i++) {
      List<Write> one = new ArrayList<>();
      int n = snaps.writeDue(s, T0.plusSeconds(i), false, records -> one.add(Write.of(records)));
      if (n == 0) {
        assertThat(one).isEmpty();
        break;
      }
      assertThat(one).hasSize(1);
      assertThat(one.get(0).apps()).hasSize(n);
      writes.add(one.get(0));
      written.addAll(one.get(0).apps());
    }
    assertThat(written).hasSize(APPS);
    assertThat(writes.size()).isGreaterThan(APPS / 4); // never all of them in one write
    for (Write w : writes) {
      // past the bound only by the last app added
      assertThat(w.chunkBytes()).isLessThan(bound + 30_000); // one app gzips to about 24,000 bytes
      assertThat(w.apps().size()).isBetween(1, 3);
    }
    assertThat(snaps.writeDue(s, T0.plusSeconds(100), false, records -> { throw new AssertionError("nothing is due"); })).isZero();
  }

  @Test
  void aSnapshotOfEveryAppNowWritesThemAllInBoundedTransactions() throws Exception {
    long bound = 60_000;
    Snapshotter snaps = snapshotter(bound);
    ControlState s = fold(snaps, 40_000);
    List<Write> writes = new ArrayList<>();
    assertThat(snaps.writeDue(s, T0, true, records -> writes.add(Write.of(records)))).isEqualTo(APPS);
    Set<String> written = new LinkedHashSet<>();
    for (Write w : writes) {
      assertThat(w.chunkBytes()).isLessThan(bound + 30_000);
      written.addAll(w.apps());
    }
    assertThat(writes.size()).isGreaterThan(APPS / 4);
    assertThat(written).hasSize(APPS);
  }

  @Test
  void appsDueUnderTheBoundAreWrittenInOneTransaction() throws Exception {
    Snapshotter snaps = snapshotter(Snapshotter.MAX_WRITE_BYTES);
    ControlState s = fold(snaps, 200);
    List<Write> writes = new ArrayList<>();
    assertThat(snaps.writeDue(s, T0, false, records -> writes.add(Write.of(records)))).isEqualTo(APPS);
    assertThat(writes).hasSize(1);
    assertThat(writes.get(0).apps()).hasSize(APPS);
  }
}
