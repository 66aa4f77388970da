package dev.updraft.events;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The records of {@code updraft.snapshots} (compacted) and their codec. Thread-safe.
 *
 * <p>One snapshot of an app is a manifest at key {@code <appId>} ({@link SnapshotManifest}, plain JSON)
 * and its gzip-compressed JSON body ({@link AppSnapshot}) split into chunks at keys
 * {@code <appId>/<snapshotId>/<i>}, whose SHA-256 the manifest records. Per partition of
 * {@code updraft.events} a marker at key {@code partition/<n>} ({@link PartitionMarker}) says from which
 * offset a reader needs that partition's events. The writer puts a snapshot's chunks, its manifest, the
 * markers and tombstones for the previous snapshot's chunks in one transaction, so a reader
 * ({@code read_committed}) sees an app's old snapshot or its new one, never half of one.
 *
 * <p>Reading never throws for bad input: a missing chunk, a checksum that does not match, bytes that do
 * not decode, or a version this build does not know is a {@link Read.Fallback} naming the reason, and the
 * reader replays that app from the log instead.
 */
public final class SnapshotCodec {
  /** The largest chunk this build writes (well under Kafka's default 1 MiB record limit). */
  public static final int CHUNK_BYTES = 512 * 1024;
  /** Key prefix of the partition markers. */
  public static final String MARKER_PREFIX = "partition/";

  /** Why a snapshot was not used (the {@code reason} tag of {@code updraft_snapshot_fallbacks_total}). */
  public static final String MISSING = "missing";
  public static final String CORRUPT = "corrupt";
  public static final String UNKNOWN_VERSION = "unknown-version";
  /** A version this build reads but whose content a given reader cannot use ({@link SnapshotSet.Result#requiring}). */
  public static final String OLD_VERSION = "old-version";

  private SnapshotCodec() {}

  /**
   * Which snapshot of an app is current and where its chunks are.
   *
   * @param v the manifest's format version ({@link AppSnapshot#VERSION})
   * @param snapshotId unique per snapshot (its chunk keys carry it)
   * @param partition the events partition the snapshot covers the app's events of
   * @param offset the offset of the last event covered
   * @param chunks how many chunks, keys {@code <appId>/<snapshotId>/0..chunks-1}
   * @param size bytes of the compressed body (all chunks)
   * @param sha256 hex SHA-256 of the compressed body
   */
  public record SnapshotManifest(
      int v, String appId, String snapshotId, int partition, long offset, long lastSequence, int chunks, long size, String sha256) {}

  /**
   * From which offset a partition's events are needed: the smallest offset of an event no snapshot
   * covers (an app never snapshotted keeps it at its first event).
   */
  public record PartitionMarker(int v, int partition, long fromOffset) {}

  /** The result of reading one app's snapshot. */
  public sealed interface Read {
    record Ok(AppSnapshot snapshot) implements Read {}

    /** @param reason {@link #MISSING}, {@link #CORRUPT}, {@link #UNKNOWN_VERSION} or {@link #OLD_VERSION} */
    record Fallback(String appId, String reason, String detail) implements Read {}
  }

  // ------------------------------------------------------------------ keys

  public static String manifestKey(String appId) {
    return appId;
  }

  public static String chunkKey(String appId, String snapshotId, int index) {
    return appId + "/" + snapshotId + "/" + index;
  }

  public static String markerKey(int partition) {
    return MARKER_PREFIX + partition;
  }

  /** Whether a key names a partition marker (app ids never contain {@code /}). */
  public static boolean isMarkerKey(String key) {
    return key != null && key.startsWith(MARKER_PREFIX) && key.indexOf('/', MARKER_PREFIX.length()) < 0;
  }

  /** Whether a key names an app's manifest. */
  public static boolean isManifestKey(String key) {
    return key != null && !key.isEmpty() && key.indexOf('/') < 0;
  }

  /** Whether a key names a chunk (three parts). */
  public static boolean isChunkKey(String key) {
    if (key == null) {
      return false;
    }
    int a = key.indexOf('/');
    int b = a < 0 ? -1 : key.indexOf('/', a + 1);
    return b > 0 && key.indexOf('/', b + 1) < 0 && !isMarkerKey(key);
  }

  // ------------------------------------------------------------------ body

  /** The uncompressed JSON of a snapshot body (golden files hold these bytes). */
  public static byte[] bodyJson(AppSnapshot s) {
    try {
      return EventCodec.MAPPER.writeValueAsBytes(s);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode snapshot appId=" + s.appId(), e);
    }
  }

  /** The gzip-compressed JSON of a snapshot body. */
  public static byte[] encode(AppSnapshot s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bodyJson(s));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot compress snapshot appId=" + s.appId(), e);
    }
    return out.toByteArray();
  }

  /**
   * Decodes an uncompressed body. A body whose first field is its version (what {@link #bodyJson} writes)
   * is bound in one pass once the version is known; any other shape goes through a tree first.
   */
  public static Read decodeJson(String appId, byte[] json) {
    int v = leadingVersion(json);
    if (v >= 1 && v <= AppSnapshot.VERSION) {
      try {
        return checked(appId, EventCodec.MAPPER.readValue(json, AppSnapshot.class));
      } catch (IOException | IllegalArgumentException | NullPointerException e) {
        return new Read.Fallback(appId, CORRUPT, "snapshot body does not decode: " + e.getMessage());
      }
    }
    return decodeTree(appId, json);
  }

  /** The version when the body is an object whose first field is an integer {@code v}, else -1. */
  private static int leadingVersion(byte[] json) {
    try (JsonParser p = EventCodec.MAPPER.getFactory().createParser(json)) {
      if (p.nextToken() == JsonToken.START_OBJECT && p.nextToken() == JsonToken.FIELD_NAME && "v".equals(p.currentName())
          && p.nextToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
        return p.getIntValue();
      }
      return -1;
    } catch (IOException e) {
      return -1;
    }
  }

  private static Read checked(String appId, AppSnapshot s) {
    if (!s.appId().equals(appId)) {
      return new Read.Fallback(appId, CORRUPT, "snapshot body is for appId=" + s.appId());
    }
    return new Read.Ok(s);
  }

  private static Read decodeTree(String appId, byte[] json) {
    JsonNode root;
    try {
      root = EventCodec.MAPPER.readTree(json);
    } catch (IOException e) {
      return new Read.Fallback(appId, CORRUPT, "snapshot body is not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject() || !root.path("v").canConvertToInt()) {
      return new Read.Fallback(appId, CORRUPT, "snapshot body has no version");
    }
    int v = root.get("v").asInt();
    if (v < 1 || v > AppSnapshot.VERSION) {
      return new Read.Fallback(appId, UNKNOWN_VERSION, "snapshot format v=" + v + " (this build reads 1.." + AppSnapshot.VERSION + ")");
    }
    try {
      return checked(appId, EventCodec.MAPPER.treeToValue(root, AppSnapshot.class));
    } catch (IOException | IllegalArgumentException | NullPointerException e) {
      return new Read.Fallback(appId, CORRUPT, "snapshot body does not decode: " + e.getMessage());
    }
  }

  /** Decodes a compressed body. */
  public static Read decode(String appId, byte[] gzip) {
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
      return decodeJson(appId, in.readAllBytes());
    } catch (IOException e) {
      return new Read.Fallback(appId, CORRUPT, "snapshot body is not gzip: " + e.getMessage());
    }
  }

  /**
   * Reassembles and decodes a snapshot from its manifest and the chunks found (index → bytes; a null
   * entry or a short list is a missing chunk).
   */
  public static Read read(SnapshotManifest m, List<byte[]> chunks) {
    if (m.v() < 1 || m.v() > AppSnapshot.VERSION) {
      return new Read.Fallback(m.appId(), UNKNOWN_VERSION, "snapshot manifest v=" + m.v());
    }
    if (chunks.size() < m.chunks()) {
      return new Read.Fallback(m.appId(), MISSING, "snapshot " + m.snapshotId() + " has " + chunks.size() + " of " + m.chunks() + " chunks");
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (int i = 0; i < m.chunks(); i++) {
      byte[] c = chunks.get(i);
      if (c == null) {
        return new Read.Fallback(m.appId(), MISSING, "snapshot " + m.snapshotId() + " lacks chunk " + i + " of " + m.chunks());
      }
      body.writeBytes(c);
    }
    byte[] bytes = body.toByteArray();
    if (bytes.length != m.size() || !sha256(bytes).equals(m.sha256())) {
      return new Read.Fallback(m.appId(), CORRUPT, "snapshot " + m.snapshotId() + " does not match its checksum (size " + bytes.length
          + ", manifest says " + m.size() + ")");
    }
    Read r = decode(m.appId(), bytes);
    if (r instanceof Read.Ok) {
      AppSnapshot s = ((Read.Ok) r).snapshot();
      if (s.offset() != m.offset() || s.partition() != m.partition() || s.lastSequence() != m.lastSequence()) {
        return new Read.Fallback(m.appId(), CORRUPT, "snapshot " + m.snapshotId() + " body disagrees with its manifest");
      }
    }
    return r;
  }

  /** {@code bytes} in pieces of at most {@code max} bytes (one empty piece for no bytes). */
  public static List<byte[]> split(byte[] bytes, int max) {
    List<byte[]> out = new ArrayList<>();
    for (int from = 0; from < bytes.length || out.isEmpty(); from += max) {
      out.add(Arrays.copyOfRange(bytes, from, Math.min(bytes.length, from + max)));
    }
    return out;
  }

  /** A manifest for a compressed body. */
  public static SnapshotManifest manifest(AppSnapshot s, String snapshotId, byte[] gzip, int chunks) {
    return new SnapshotManifest(AppSnapshot.VERSION, s.appId(), snapshotId, s.partition(), s.offset(), s.lastSequence(), chunks,
        gzip.length, sha256(gzip));
  }

  // ------------------------------------------------------------------ manifest and marker records

  public static byte[] encodeManifest(SnapshotManifest m) {
    return json(m);
  }

  /** The manifest in {@code bytes}, or null when they are not one (a reader then replays the app). */
  public static SnapshotManifest decodeManifest(byte[] bytes) {
    return parse(bytes, SnapshotManifest.class);
  }

  public static byte[] encodeMarker(PartitionMarker m) {
    return json(m);
  }

  /** The marker in {@code bytes}, or null when they are not one of a version this build knows. */
  public static PartitionMarker decodeMarker(byte[] bytes) {
    PartitionMarker m = parse(bytes, PartitionMarker.class);
    return m == null || m.v() < 1 || m.v() > AppSnapshot.VERSION ? null : m;
  }

  private static byte[] json(Object o) {
    try {
      return EventCodec.MAPPER.writeValueAsBytes(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode " + o.getClass().getSimpleName(), e);
    }
  }

  private static <T> T parse(byte[] bytes, Class<T> type) {
    if (bytes == null || bytes.length == 0) {
      return null;
    }
    try {
      return EventCodec.MAPPER.readValue(bytes, type);
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  /** Lower-case hex SHA-256. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from this JVM", e);
    }
  }
}
