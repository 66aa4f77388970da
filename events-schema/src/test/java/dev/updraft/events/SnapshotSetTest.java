package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.SnapshotCodec.PartitionMarker;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotSetTest {

  private static void write(SnapshotSet set, AppSnapshot s, String id) {
    byte[] gz = SnapshotCodec.encode(s);
    List<byte[]> chunks = SnapshotCodec.split(gz, 100);
    for (int i = 0; i < chunks.size(); i++) {
      set.accept(SnapshotCodec.chunkKey(s.appId(), id, i), chunks.get(i));
    }
    set.accept(SnapshotCodec.manifestKey(s.appId()), SnapshotCodec.encodeManifest(SnapshotCodec.manifest(s, id, gz, chunks.size())));
  }

  /**
   * A set that starts decoding as each manifest arrives gives what a set decoding at the end gives, also when
   * a later record deletes a chunk or replaces the snapshot (the early decode read records that are no longer
   * the latest).
   */
  @Test
  void decodingWhileReadingGivesWhatDecodingAtTheEndGives() {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
    try {
      SnapshotSet plain = new SnapshotSet();
      SnapshotSet early = new SnapshotSet(pool);
      List<java.util.function.Consumer<SnapshotSet>> steps = List.of(
          x -> write(x, SnapshotCodecTest.V1, "s1"),
          x -> x.accept(SnapshotCodec.markerKey(2), SnapshotCodec.encodeMarker(new PartitionMarker(1, 2, 30))),
          x -> x.accept(SnapshotCodec.chunkKey("demo", "s1", 0), null),
          x -> write(x, SnapshotCodecTest.V2, "s2"),
          x -> x.accept(SnapshotCodec.chunkKey("demo", "s2", 1), new byte[] {1, 2, 3}),
          x -> write(x, SnapshotCodecTest.V1, "s3"));
      for (java.util.function.Consumer<SnapshotSet> step : steps) {
        step.accept(plain);
        step.accept(early);
        SnapshotSet.Result a = plain.result();
        SnapshotSet.Result b = early.result(pool);
        assertThat(b.snapshots()).isEqualTo(a.snapshots());
        assertThat(b.fallbacks()).extracting(SnapshotCodec.Read.Fallback::reason)
            .isEqualTo(a.fallbacks().stream().map(SnapshotCodec.Read.Fallback::reason).toList());
        assertThat(b.startOffsets(List.of(0, 1, 2))).isEqualTo(a.startOffsets(List.of(0, 1, 2)));
      }
      assertThat(early.result(pool).snapshots()).containsOnlyKeys("demo");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theLatestSnapshotOfEachAppAndTheMarkersGiveWhereToStart() {
    SnapshotSet set = new SnapshotSet();
    write(set, SnapshotCodecTest.V1, "s1");
    set.accept(SnapshotCodec.markerKey(2), SnapshotCodec.encodeMarker(new PartitionMarker(1, 2, 30)));
    set.accept(SnapshotCodec.markerKey(0), SnapshotCodec.encodeMarker(new PartitionMarker(1, 0, 5)));
    SnapshotSet.Result r = set.result();
    assertThat(r.snapshots()).containsOnlyKeys("demo");
    assertThat(r.fallbacks()).isEmpty();
    assertThat(r.startOffsets(List.of(0, 1, 2))).isEqualTo(Map.of(0, 5L, 1, 0L, 2, 30L));
    assertThat(r.covers("demo", 2, 41)).isTrue();
    assertThat(r.covers("demo", 2, 42)).isFalse();
    assertThat(r.covers("demo", 1, 3)).isFalse();
    assertThat(r.covers("nope", 2, 1)).isFalse();
  }

  @Test
  void anUnusableSnapshotSendsItsPartitionOrEveryPartitionBackToTheStart() {
    SnapshotSet set = new SnapshotSet();
    write(set, SnapshotCodecTest.V1, "s1");
    set.accept(SnapshotCodec.markerKey(2), SnapshotCodec.encodeMarker(new PartitionMarker(1, 2, 30)));
    set.accept(SnapshotCodec.markerKey(1), SnapshotCodec.encodeMarker(new PartitionMarker(1, 1, 9)));
    set.accept(SnapshotCodec.chunkKey("demo", "s1", 0), null); // a chunk deleted
    SnapshotSet.Result missing = set.result();
    assertThat(missing.snapshots()).isEmpty();
    assertThat(missing.fallbacks()).extracting(SnapshotCodec.Read.Fallback::reason).containsExactly(SnapshotCodec.MISSING);
    assertThat(missing.startOffsets(List.of(1, 2))).isEqualTo(Map.of(1, 9L, 2, 0L));

    set.accept("demo", ("{\"v\":7,\"appId\":\"demo\",\"snapshotId\":\"x\",\"partition\":1,\"offset\":1,\"lastSequence\":1,\"chunks\":0,"
        + "\"size\":0,\"sha256\":\"\"}").getBytes(StandardCharsets.UTF_8));
    SnapshotSet.Result newer = set.result();
    assertThat(newer.fallbacks()).extracting(SnapshotCodec.Read.Fallback::reason).containsExactly(SnapshotCodec.UNKNOWN_VERSION);
    assertThat(newer.startOffsets(List.of(1, 2))).isEqualTo(Map.of(1, 0L, 2, 0L));

    set.accept("demo", new byte[] {'x'});
    assertThat(set.result().fallbacks()).extracting(SnapshotCodec.Read.Fallback::reason).containsExactly(SnapshotCodec.CORRUPT);
    set.accept("demo", null);
    assertThat(set.result().fallbacks()).isEmpty();
    SnapshotManifest none = set.result().manifests().get("demo");
    assertThat(none).isNull();
  }

  @Test
  void aReaderThatNeedsANewerFormatReplaysTheAppsOfOlderSnapshots() {
    SnapshotSet set = new SnapshotSet();
    write(set, SnapshotCodecTest.V1, "s1");
    set.accept(SnapshotCodec.markerKey(2), SnapshotCodec.encodeMarker(new PartitionMarker(1, 2, 30)));
    set.accept(SnapshotCodec.markerKey(0), SnapshotCodec.encodeMarker(new PartitionMarker(1, 0, 5)));
    SnapshotSet.Result any = set.result();
    assertThat(any.requiring(1)).isSameAs(any);
    SnapshotSet.Result v2 = any.requiring(2);
    assertThat(v2.snapshots()).isEmpty();
    assertThat(v2.fallbacks()).extracting(SnapshotCodec.Read.Fallback::reason).containsExactly(SnapshotCodec.OLD_VERSION);
    assertThat(v2.startOffsets(List.of(0, 2))).as("the v1 snapshot's partition is read from its start").isEqualTo(Map.of(0, 5L, 2, 0L));
    assertThat(v2.covers("demo", 2, 41)).isFalse();

    write(set, SnapshotCodecTest.V2, "s2");
    SnapshotSet.Result now = set.result().requiring(2);
    assertThat(now.snapshots()).containsOnlyKeys("demo");
    assertThat(now.fallbacks()).isEmpty();
    assertThat(now.covers("demo", 2, 41)).isTrue();
  }
}
