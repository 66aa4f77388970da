package dev.updraft.events;

import dev.updraft.events.SnapshotCodec.PartitionMarker;
import dev.updraft.events.SnapshotCodec.Read;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a reader of {@code updraft.snapshots} found, read from its start to its end ({@code read_committed}):
 * the latest value of each key (a null value deletes it, as compaction will), then per app its snapshot or
 * the reason it cannot be used, and the partition markers. From that, where to start reading each
 * partition of {@code updraft.events}. Not thread-safe: one reader fills it.
 */
public final class SnapshotSet {
  private final Map<String, byte[]> latest = new HashMap<>();
  /** Nullable: where an app's snapshot starts decoding as soon as its manifest arrives. */
  private final Executor early;
  /** By app id: a decode started while reading, and the exact records it read (used only if they are still the latest). */
  private final Map<String, Early> started = new HashMap<>();

  private record Early(byte[] manifest, List<byte[]> chunks, CompletableFuture<Read> read) {}

  /** A set that decodes only in {@link #result}. */
  public SnapshotSet() {
    this(null);
  }

  /**
   * A set that starts decoding an app's snapshot on {@code early} as soon as its manifest and chunks have
   * arrived (the writer puts a snapshot's chunks before its manifest), while the rest of the topic is read;
   * {@link #result} uses that decode only when the records it read are still the latest ones.
   */
  public SnapshotSet(Executor early) {
    this.early = early;
  }

  /** One record of the topic, in offset order. */
  public void accept(String key, byte[] value) {
    if (key == null) {
      return;
    }
    if (value == null) {
      latest.remove(key);
    } else {
      latest.put(key, value);
      if (early != null && SnapshotCodec.isManifestKey(key)) {
        SnapshotManifest m = SnapshotCodec.decodeManifest(value);
        List<byte[]> chunks = m == null || !key.equals(m.appId()) ? null : chunks(m);
        if (chunks != null && !chunks.contains(null)) {
          started.put(key, new Early(value, chunks, CompletableFuture.supplyAsync(() -> read(m, chunks), early)));
        }
      }
    }
  }

  private List<byte[]> chunks(SnapshotManifest m) {
    List<byte[]> chunks = new ArrayList<>();
    for (int i = 0; i < Math.max(0, m.chunks()); i++) {
      chunks.add(latest.get(SnapshotCodec.chunkKey(m.appId(), m.snapshotId(), i)));
    }
    return chunks;
  }

  /** The decode started while reading, if it read exactly the latest records of the app. */
  private CompletableFuture<Read> startedFor(String key, List<byte[]> chunks) {
    Early e = started.get(key);
    if (e == null || e.manifest() != latest.get(key) || e.chunks().size() != chunks.size()) {
      return null;
    }
    for (int i = 0; i < chunks.size(); i++) {
      if (e.chunks().get(i) != chunks.get(i)) {
        return null;
      }
    }
    return e.read();
  }

  /** What the records say, each snapshot decoded on the calling thread. */
  public Result result() {
    return result(Runnable::run);
  }

  /**
   * What the records say, each app's snapshot decoded (decompressed, checked, parsed) as one task on
   * {@code executor}: the result is the same whatever the executor (the tasks only read the records, and
   * their results are gathered in key order).
   */
  public Result result(Executor executor) {
    Map<String, AppSnapshot> snapshots = new TreeMap<>();
    Map<String, SnapshotManifest> manifests = new TreeMap<>();
    List<Read.Fallback> fallbacks = new ArrayList<>();
    Map<Integer, Long> markers = new TreeMap<>();
    Map<String, SnapshotManifest> decoded = new TreeMap<>(); // key order: the fallbacks' order does not depend on the executor
    for (Map.Entry<String, byte[]> e : latest.entrySet()) {
      String key = e.getKey();
      if (SnapshotCodec.isMarkerKey(key)) {
        PartitionMarker m = SnapshotCodec.decodeMarker(e.getValue());
        if (m != null) {
          markers.put(m.partition(), m.fromOffset());
        }
      } else if (SnapshotCodec.isManifestKey(key)) {
        decoded.put(key, SnapshotCodec.decodeManifest(e.getValue()));
      }
    }
    Map<String, CompletableFuture<Read>> reads = new TreeMap<>();
    for (Map.Entry<String, SnapshotManifest> e : decoded.entrySet()) {
      SnapshotManifest m = e.getValue();
      if (m != null && m.appId() != null && m.appId().equals(e.getKey())) {
        List<byte[]> chunks = chunks(m);
        CompletableFuture<Read> done = startedFor(e.getKey(), chunks);
        reads.put(e.getKey(), done != null ? done : CompletableFuture.supplyAsync(() -> read(m, chunks), executor));
      }
    }
    for (Map.Entry<String, SnapshotManifest> e : decoded.entrySet()) {
      String key = e.getKey();
      SnapshotManifest m = e.getValue();
      if (!reads.containsKey(key)) {
        fallbacks.add(new Read.Fallback(key, SnapshotCodec.CORRUPT, "the manifest of app " + key + " does not decode"));
      } else {
        Read r = reads.get(key).join();
        if (r instanceof Read.Ok) {
          snapshots.put(key, ((Read.Ok) r).snapshot());
          manifests.put(key, m);
        } else {
          fallbacks.add((Read.Fallback) r);
          if (m.v() >= 1 && m.v() <= AppSnapshot.VERSION) {
            manifests.put(key, m); // its partition is known: that partition is read from its start
          } // a manifest of an unknown version: nothing in it is trusted, every partition is read from its start
        }
      }
    }
    Map<String, Position> covered = new TreeMap<>();
    for (AppSnapshot snap : snapshots.values()) {
      covered.put(snap.appId(), new Position(snap.partition(), snap.offset()));
    }
    return new Result(snapshots, manifests, fallbacks, markers, covered);
  }

  /** {@link SnapshotCodec#read}, with a failure of the decoder (a bug) turned into a fallback: that app is replayed. */
  private static Read read(SnapshotManifest m, List<byte[]> chunks) {
    try {
      return SnapshotCodec.read(m, chunks);
    } catch (RuntimeException e) {
      return new Read.Fallback(m.appId(), SnapshotCodec.CORRUPT, "snapshot " + m.snapshotId() + " does not decode: " + e);
    }
  }

  /** Where an app's snapshot stands in the events topic. */
  public record Position(int partition, long offset) {}

  /**
   * @param snapshots by app id: the snapshots that can be used
   * @param manifests by app id: every manifest that decoded (usable or not: its chunk keys are replaced by
   *     the next snapshot)
   * @param fallbacks apps whose snapshot cannot be used, with the reason (those apps are replayed)
   * @param markers by events partition: from which offset its events are needed
   * @param covered by app id: the position each usable snapshot covers the app's events to
   */
  public record Result(
      Map<String, AppSnapshot> snapshots, Map<String, SnapshotManifest> manifests, List<Read.Fallback> fallbacks,
      Map<Integer, Long> markers, Map<String, Position> covered) {

    /**
     * This result with every snapshot of a format older than {@code v} turned into a {@link SnapshotCodec#OLD_VERSION}
     * fallback: for a reader that needs what only {@code v} and later carry (those apps are replayed).
     */
    public Result requiring(int v) {
      Map<String, AppSnapshot> usable = new TreeMap<>();
      List<Read.Fallback> falls = new ArrayList<>(fallbacks);
      Map<String, Position> cover = new TreeMap<>(covered);
      for (AppSnapshot s : snapshots.values()) {
        if (s.v() >= v) {
          usable.put(s.appId(), s);
        } else {
          falls.add(new Read.Fallback(s.appId(), SnapshotCodec.OLD_VERSION, "snapshot format v=" + s.v() + " (this reader needs v" + v + " or later)"));
          cover.remove(s.appId());
        }
      }
      return usable.size() == snapshots.size() ? this : new Result(usable, manifests, falls, markers, cover);
    }

    /** This result without the snapshots themselves (once applied: a reader keeps only where they stand). */
    public Result withoutSnapshots() {
      return new Result(Map.of(), manifests, fallbacks, markers, covered);
    }

    /**
     * Where to start reading each of {@code partitions}: the marker, or 0 without one, for a partition one
     * of whose apps fell back (its events from the start), or for all when a fallback's partition is
     * unknown (a manifest that does not decode).
     */
    public Map<Integer, Long> startOffsets(Collection<Integer> partitions) {
      Map<Integer, Long> out = new TreeMap<>();
      boolean all = false;
      List<Integer> fromStart = new ArrayList<>();
      for (Read.Fallback f : fallbacks) {
        SnapshotManifest m = manifests.get(f.appId());
        if (m == null) {
          all = true;
        } else {
          fromStart.add(m.partition());
        }
      }
      for (int p : partitions) {
        Long marker = markers.get(p);
        out.put(p, all || fromStart.contains(p) || marker == null ? 0L : marker);
      }
      return out;
    }

    /** Whether the event at {@code offset} of {@code partition} for {@code appId} is already in its snapshot. */
    public boolean covers(String appId, int partition, long offset) {
      Position p = covered.get(appId);
      return p != null && p.partition() == partition && offset <= p.offset();
    }
  }
}
