package dev.updraft.controlplane.state;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * The idempotency keys a retried publish is recognised by: bounded and a function of the events alone.
 * It holds the keys of groups published within {@link #WINDOW} of the app's latest event, at most
 * {@link #MAX_KEYS} (the oldest leave first). A retry whose key has left the window (or whose group the
 * retention rule has dropped) is not recognised: it publishes a new group. Immutable and persistent.
 */
public final class IdempotencyWindow {
  /** How long after its publish a key is recognised, measured on the app's event times. */
  public static final Duration WINDOW = Duration.ofHours(24);
  /** The most keys held per app. */
  public static final int MAX_KEYS = 1000;

  static final IdempotencyWindow EMPTY = new IdempotencyWindow(TreePMap.empty(), TreePMap.empty());

  /** A key: the group it made, the app sequence of that publish and when it happened. */
  public record Entry(String key, String groupId, long sequence, Instant publishedAt) {}

  private final PSortedMap<String, Entry> byKey;
  private final PSortedMap<Long, Entry> bySequence;

  private IdempotencyWindow(PSortedMap<String, Entry> byKey, PSortedMap<Long, Entry> bySequence) {
    this.byKey = byKey;
    this.bySequence = bySequence;
  }

  /** A window holding {@code entries} (oldest first), as a snapshot lists them. */
  public static IdempotencyWindow of(List<Entry> entries) {
    IdempotencyWindow w = EMPTY;
    for (Entry e : entries) {
      w = w.plus(e);
    }
    return w;
  }

  /** The group published with {@code key}, or null. */
  public String get(String key) {
    Entry e = byKey.get(key);
    return e == null ? null : e.groupId();
  }

  public boolean containsKey(String key) {
    return byKey.containsKey(key);
  }

  public int size() {
    return byKey.size();
  }

  /** Every key held, oldest publish first. */
  public List<Entry> entries() {
    return new ArrayList<>(bySequence.values());
  }

  /** This window with {@code e} added, unless its key is already held (the first publish with a key keeps it). */
  IdempotencyWindow plus(Entry e) {
    if (byKey.containsKey(e.key())) {
      return this;
    }
    return new IdempotencyWindow(byKey.plus(e.key(), e), bySequence.plus(e.sequence(), e));
  }

  /** This window without {@code key} (its group was deleted: a retry then publishes again). */
  IdempotencyWindow minus(String key) {
    Entry e = byKey.get(key);
    return e == null ? this : new IdempotencyWindow(byKey.minus(key), bySequence.minus(e.sequence()));
  }

  /** This window without the key that made {@code groupId}, if one did (a deleted group the history no longer holds). */
  IdempotencyWindow withoutGroup(String groupId) {
    for (Entry e : bySequence.values()) {
      if (e.groupId().equals(groupId)) {
        return minus(e.key());
      }
    }
    return this;
  }

  /** This window without the keys published before {@code latest} minus {@link #WINDOW}, and at most {@link #MAX_KEYS}. */
  IdempotencyWindow trimmed(Instant latest) {
    PSortedMap<String, Entry> k = byKey;
    PSortedMap<Long, Entry> s = bySequence;
    Instant from = latest.minus(WINDOW);
    while (!s.isEmpty() && (s.size() > MAX_KEYS || s.firstEntry().getValue().publishedAt().isBefore(from))) {
      Entry oldest = s.firstEntry().getValue();
      s = s.minus(oldest.sequence());
      k = k.minus(oldest.key());
    }
    return s == bySequence ? this : new IdempotencyWindow(k, s);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IdempotencyWindow && ((IdempotencyWindow) o).bySequence.equals(bySequence);
  }

  @Override
  public int hashCode() {
    return Objects.hash(bySequence);
  }

  @Override
  public String toString() {
    return "IdempotencyWindow" + bySequence.values();
  }
}
