package dev.updraft.launcher.backup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.AppSnapshot;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.SnapshotCodec.PartitionMarker;
import dev.updraft.events.SnapshotCodec.Read;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The records to write to a restored {@code updraft.snapshots}: what the backed-up topic says once compacted
 * (the latest value of each key), with every position of {@code updraft.events} in it moved to where that
 * event landed in the restored log ({@link OffsetMap}).
 *
 * <p>Snapshot records name absolute offsets: an app's manifest and its body the offset of the last event the
 * snapshot covers, a partition's marker the offset from which readers need the partition. In the old log
 * aborted transactions and transaction markers took offsets that the restored log does not have, so those
 * numbers would point past events (readers would skip what the snapshots do not cover). Each snapshot's body
 * is rewritten in its JSON (only {@code offset} changes; fields this build does not know are kept), compressed
 * and split again, its manifest given the new offset, size, checksum and chunk count; each marker gets the new
 * offset of the first event at or after its old one.
 *
 * <p>A snapshot that cannot be rewritten (one its readers could not use either: missing chunks, a checksum
 * that does not match, an unknown format version; or one naming an event outside the backup) is left out,
 * and so is the marker of its partition, so readers read that partition from its start: a slower start,
 * never a wrong image. Pure; thread-safe.
 */
final class SnapshotRewrite {
  /** Reads and writes the records as JSON trees: what this build does not know of them passes through. */
  private static final ObjectMapper TREES = new ObjectMapper();

  private SnapshotRewrite() {}

  /** One record to write: key and value (the topic is compacted; no tombstones are needed in a new topic). */
  record Out(String key, byte[] value) {}

  /**
   * @param records the rewritten records: chunks, then manifests, then markers
   * @param snapshots apps whose snapshot was restored
   * @param markers partition markers restored
   * @param notes what was left out and why, one line each
   */
  record Result(List<Out> records, int snapshots, int markers, List<String> notes) {}

  /**
   * @param read the backed-up records of the snapshots topic in their order (a null value deletes its key)
   * @param eventsEnd per events partition, the end offset the backup read it to
   */
  static Result rewrite(List<RecordFile.Rec> read, OffsetMap offsets, Map<Integer, Long> eventsEnd) {
    Map<String, byte[]> latest = new TreeMap<>();
    for (RecordFile.Rec r : read) {
      if (r.key() == null) {
        continue;
      }
      String key = new String(r.key(), java.nio.charset.StandardCharsets.UTF_8);
      if (r.value() == null) {
        latest.remove(key);
      } else {
        latest.put(key, r.value());
      }
    }
    List<Out> chunks = new ArrayList<>();
    List<Out> manifests = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Set<Integer> unsafe = new HashSet<>();
    boolean allUnsafe = false;
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      if (!SnapshotCodec.isManifestKey(e.getKey())) {
        continue;
      }
      String appId = e.getKey();
      SnapshotManifest m = SnapshotCodec.decodeManifest(e.getValue());
      if (m == null || !appId.equals(m.appId()) || m.v() < 1 || m.v() > AppSnapshot.VERSION) {
        notes.add("snapshot of app " + appId + " left out: its manifest does not decode or is of a format this build does not know;"
            + " every events partition is read from its start");
        allUnsafe = true;
        continue;
      }
      List<byte[]> parts = new ArrayList<>();
      for (int i = 0; i < Math.max(0, m.chunks()); i++) {
        parts.add(latest.get(SnapshotCodec.chunkKey(appId, m.snapshotId(), i)));
      }
      Read r = SnapshotCodec.read(m, parts);
      if (r instanceof Read.Fallback f) {
        notes.add("snapshot of app " + appId + " left out (" + f.reason() + ": " + f.detail() + "); partition " + m.partition()
            + " is read from its start");
        unsafe.add(m.partition());
        continue;
      }
      long moved = offsets.exact(m.partition(), m.offset());
      if (moved < 0) {
        notes.add("snapshot of app " + appId + " left out: it covers events up to offset " + m.offset() + " of partition " + m.partition()
            + ", which the backup does not hold; that partition is read from its start");
        unsafe.add(m.partition());
        continue;
      }
      Rewritten w = rewriteOne(e.getValue(), m, gunzip(joined(parts)), moved);
      chunks.addAll(w.chunks());
      manifests.add(w.manifest());
    }
    List<Out> markers = new ArrayList<>();
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      if (!SnapshotCodec.isMarkerKey(e.getKey())) {
        continue;
      }
      PartitionMarker m = SnapshotCodec.decodeMarker(e.getValue());
      if (m == null || !e.getKey().equals(SnapshotCodec.markerKey(m.partition()))) {
        notes.add("marker " + e.getKey() + " left out: it does not decode");
        continue;
      }
      if (allUnsafe || unsafe.contains(m.partition())) {
        notes.add("marker of partition " + m.partition() + " left out: a snapshot of that partition was left out");
        continue;
      }
      Long end = eventsEnd.get(m.partition());
      if (end == null || m.fromOffset() > end) {
        notes.add("marker of partition " + m.partition() + " left out: it names offset " + m.fromOffset() + ", past the backup's end "
            + end);
        continue;
      }
      ObjectNode tree = object(e.getValue(), "marker " + e.getKey());
      tree.put("fromOffset", offsets.from(m.partition(), m.fromOffset()));
      markers.add(new Out(e.getKey(), json(tree)));
    }
    List<Out> all = new ArrayList<>(chunks);
    all.addAll(manifests);
    all.addAll(markers);
    return new Result(all, manifests.size(), markers.size(), notes);
  }

  private record Rewritten(List<Out> chunks, Out manifest) {}

  /** One app's snapshot with {@code offset} as the offset of its last event, checked by decoding it as a reader does. */
  private static Rewritten rewriteOne(byte[] manifestBytes, SnapshotManifest m, byte[] body, long offset) {
    ObjectNode tree = object(body, "snapshot body of app " + m.appId());
    tree.put("offset", offset);
    byte[] gz = gzip(json(tree));
    List<byte[]> parts = SnapshotCodec.split(gz, SnapshotCodec.CHUNK_BYTES);
    List<Out> chunks = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      chunks.add(new Out(SnapshotCodec.chunkKey(m.appId(), m.snapshotId(), i), parts.get(i)));
    }
    ObjectNode man = object(manifestBytes, "snapshot manifest of app " + m.appId());
    man.put("offset", offset);
    man.put("chunks", parts.size());
    man.put("size", gz.length);
    man.put("sha256", SnapshotCodec.sha256(gz));
    byte[] manifest = json(man);
    Read check = SnapshotCodec.read(SnapshotCodec.decodeManifest(manifest), parts);
    if (!(check instanceof Read.Ok ok) || ok.snapshot().offset() != offset || ok.snapshot().partition() != m.partition()) {
      throw new IllegalStateException("the rewritten snapshot of appId=" + m.appId() + " does not read back: " + check);
    }
    return new Rewritten(chunks, new Out(m.appId(), manifest));
  }

  private static byte[] joined(List<byte[]> parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b.toByteArray();
  }

  private static ObjectNode object(byte[] json, String what) {
    try {
      JsonNode n = TREES.readTree(json);
      if (n instanceof ObjectNode o) {
        return o;
      }
    } catch (IOException e) {
      throw new IllegalStateException(what + " decoded as a snapshot but not as a JSON object: " + e.getMessage(), e);
    }
    throw new IllegalStateException(what + " decoded as a snapshot but is not a JSON object");
  }

  private static byte[] json(JsonNode n) {
    try {
      // insertion order is kept: the body's version stays its first field, as readers expect
      return TREES.writeValueAsBytes(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] gunzip(byte[] gz) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("a snapshot that decoded does not decompress again", e);
    }
  }

  private static byte[] gzip(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
