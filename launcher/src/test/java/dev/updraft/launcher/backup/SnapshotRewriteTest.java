package dev.updraft.launcher.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.SnapshotCodec.PartitionMarker;
import dev.updraft.events.SnapshotSet;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Snapshot records restored into a log whose offsets changed: the readers' own {@link SnapshotSet} finds each
 * snapshot at the new offset of the event it covered, and starts each partition where the first event it still
 * needs now is; a snapshot that cannot be moved is left out with its partition's marker (that partition is read
 * from its start). The old logs below have a transaction marker after every event (offsets 0, 2, 4, ...), as the
 * control plane's transactions leave them; the restored ones do not (0, 1, 2, ...).
 */
class SnapshotRewriteTest {
  /** Partition 0: events at old offsets 0, 2, ..., 20 (11 events) land at 0..10; partition 1: 1, 3, 5 land at 0..2. */
  static OffsetMap offsets() {
    OffsetMap m = new OffsetMap();
    m.partition(0, 11);
    for (int i = 0; i < 11; i++) {
      m.old(0, i, 2L * i);
      m.landed(0, i, i);
    }
    m.partition(1, 3);
    for (int i = 0; i < 3; i++) {
      m.old(1, i, 2L * i + 1);
      m.landed(1, i, i);
    }
    m.check();
    return m;
  }

  static final Map<Integer, Long> ENDS = Map.of(0, 22L, 1, 6L);

  static AppSnapshot snapshot(String app, int partition, long offset, long sequence) {
    return new AppSnapshot(2, app, partition, offset, sequence, "App " + app, "2026-11-30T09:00:00Z", "admin", null, null, null, null, null,
        null, null, null, null, List.of(), List.of());
  }

  /** The records one snapshot write puts on the topic: chunks, manifest. */
  static List<RecordFile.Rec> written(AppSnapshot s, String id) {
    byte[] gz = SnapshotCodec.encode(s);
    List<byte[]> chunks = SnapshotCodec.split(gz, SnapshotCodec.CHUNK_BYTES);
    List<RecordFile.Rec> out = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      out.add(rec(SnapshotCodec.chunkKey(s.appId(), id, i), chunks.get(i)));
    }
    out.add(rec(s.appId(), SnapshotCodec.encodeManifest(SnapshotCodec.manifest(s, id, gz, chunks.size()))));
    return out;
  }

  static RecordFile.Rec marker(int partition, long from) {
    return rec(SnapshotCodec.markerKey(partition), SnapshotCodec.encodeMarker(new PartitionMarker(2, partition, from)));
  }

  static RecordFile.Rec rec(String key, byte[] value) {
    return new RecordFile.Rec(0, 0, key.getBytes(StandardCharsets.UTF_8), value, List.of());
  }

  /** What a reader (edge or control plane) makes of the restored records. */
  static SnapshotSet.Result read(SnapshotRewrite.Result r) {
    SnapshotSet set = new SnapshotSet();
    for (SnapshotRewrite.Out o : r.records()) {
      set.accept(o.key(), o.value());
    }
    return set.result();
  }

  @Test
  void shouldMoveSnapshotsAndMarkersToWhereTheirEventsLanded() {
    List<RecordFile.Rec> topic = new ArrayList<>();
    topic.addAll(written(snapshot("alpha", 0, 6, 4), "s4-a")); // its last event at old offset 6: the 4th event, new offset 3
    topic.addAll(written(snapshot("beta", 1, 5, 3), "s3-b")); // old 5: new 2
    topic.add(marker(0, 8)); // alpha's events from old 8 on are not covered: new 4
    topic.add(marker(1, 6)); // beta covered to its last event: the offset after it, 6 -> 3

    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(topic, offsets(), ENDS);

    assertThat(r.notes()).isEmpty();
    assertThat(r.snapshots()).isEqualTo(2);
    assertThat(r.markers()).isEqualTo(2);
    SnapshotSet.Result read = read(r);
    assertThat(read.fallbacks()).isEmpty();
    assertThat(read.snapshots().get("alpha").offset()).isEqualTo(3);
    assertThat(read.snapshots().get("beta").offset()).isEqualTo(2);
    assertThat(read.manifests().get("alpha").offset()).isEqualTo(3);
    assertThat(read.startOffsets(List.of(0, 1))).isEqualTo(Map.of(0, 4L, 1, 3L));
    assertThat(read.covers("alpha", 0, 3)).isTrue();
    assertThat(read.covers("alpha", 0, 4)).as("the first event after the snapshot is folded").isFalse();
    // everything else in the snapshot is as it was
    assertThat(read.snapshots().get("alpha")).isEqualTo(snapshot("alpha", 0, 3, 4));
  }

  @Test
  void shouldRestoreOnlyTheLatestSnapshotOfAnApp() {
    List<RecordFile.Rec> topic = new ArrayList<>(written(snapshot("alpha", 0, 2, 2), "s2-a"));
    topic.add(marker(0, 4));
    topic.addAll(written(snapshot("alpha", 0, 10, 6), "s6-a"));
    topic.add(rec(SnapshotCodec.chunkKey("alpha", "s2-a", 0), null)); // the tombstone of the previous chunk
    topic.add(marker(0, 12));

    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(topic, offsets(), ENDS);

    assertThat(r.records()).extracting(SnapshotRewrite.Out::key).containsExactly("alpha/s6-a/0", "alpha", "partition/0");
    SnapshotSet.Result read = read(r);
    assertThat(read.snapshots().get("alpha").offset()).isEqualTo(5);
    assertThat(read.startOffsets(List.of(0))).isEqualTo(Map.of(0, 6L));
  }

  @Test
  void shouldLeaveOutASnapshotOfAnEventTheBackupLacksAndReadItsPartitionFromTheStart() {
    List<RecordFile.Rec> topic = new ArrayList<>(written(snapshot("alpha", 0, 7, 4), "s4-a")); // 7 is no event of the backup
    topic.addAll(written(snapshot("beta", 1, 5, 3), "s3-b"));
    topic.add(marker(0, 8));
    topic.add(marker(1, 6));

    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(topic, offsets(), ENDS);

    assertThat(r.notes()).hasSize(2).anySatisfy(n -> assertThat(n).contains("alpha", "offset 7"))
        .anySatisfy(n -> assertThat(n).contains("marker of partition 0"));
    SnapshotSet.Result read = read(r);
    assertThat(read.snapshots()).containsOnlyKeys("beta");
    assertThat(read.startOffsets(List.of(0, 1))).isEqualTo(Map.of(0, 0L, 1, 3L));
  }

  @Test
  void shouldLeaveOutASnapshotItsReadersCouldNotUseEither() {
    List<RecordFile.Rec> topic = new ArrayList<>(written(snapshot("alpha", 0, 6, 4), "s4-a"));
    topic.set(0, rec("alpha/s4-a/0", "not gzip".getBytes(StandardCharsets.US_ASCII)));
    topic.add(marker(0, 8));

    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(topic, offsets(), ENDS);

    assertThat(r.snapshots()).isZero();
    assertThat(r.markers()).isZero();
    assertThat(r.notes()).anySatisfy(n -> assertThat(n).contains("alpha", "corrupt"));
    assertThat(read(r).startOffsets(List.of(0))).isEqualTo(Map.of(0, 0L));
  }

  @Test
  void shouldLeaveOutAMarkerPastTheEndTheBackupRead() {
    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(List.of(marker(1, 40)), offsets(), ENDS);

    assertThat(r.records()).isEmpty();
    assertThat(r.notes()).singleElement().asString().contains("past the backup's end 6");
  }

  @Test
  void shouldStartAPartitionWithoutEventsAtZero() {
    OffsetMap none = new OffsetMap();
    none.partition(0, 0);
    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(List.of(marker(0, 7)), none, Map.of(0, 7L));

    assertThat(read(r).startOffsets(List.of(0))).isEqualTo(Map.of(0, 0L));
  }

  @Test
  void shouldKeepFieldsThisBuildDoesNotKnowInTheBody() throws Exception {
    String body = "{\"v\":2,\"appId\":\"alpha\",\"partition\":0,\"offset\":6,\"lastSequence\":4,\"displayName\":\"A\","
        + "\"createdAt\":\"2026-11-30T09:00:00Z\",\"createdBy\":\"admin\",\"futureField\":{\"x\":[1,2]}}";
    byte[] gz = gzip(body.getBytes(StandardCharsets.UTF_8));
    SnapshotCodec.SnapshotManifest m = new SnapshotCodec.SnapshotManifest(2, "alpha", "s4-a", 0, 6, 4, 1, gz.length, SnapshotCodec.sha256(gz));
    List<RecordFile.Rec> topic = List.of(rec("alpha/s4-a/0", gz), rec("alpha", SnapshotCodec.encodeManifest(m)));

    SnapshotRewrite.Result r = SnapshotRewrite.rewrite(topic, offsets(), ENDS);

    byte[] chunk = r.records().get(0).value();
    String rewritten = new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(chunk)).readAllBytes(), StandardCharsets.UTF_8);
    assertThat(rewritten).isEqualTo(body.replace("\"offset\":6", "\"offset\":3"));
  }

  private static byte[] gzip(byte[] raw) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(raw);
    }
    return out.toByteArray();
  }
}
