package dev.updraft.edge.image;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.EventEnvelope;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Changes on top of a {@link ResolveImage}: events are replayed into it one at a time and
 * {@link #apply()} makes the next image (modelled on Kafka's {@code MetadataDelta}). Only the apps an
 * event touched are copied and rebuilt. Not thread-safe: one thread (the log reader) owns a delta.
 */
public final class ImageDelta {
  /** What {@link #replay} did with an event. */
  public enum Replayed {
    /** Folded into the delta. */
    APPLIED,
    /** Its sequence was not above the app's last: a duplicate, left out. */
    DUPLICATE,
    /** Well-formed but contradicting the app's state (logged); left out, its sequence used up. */
    INCONSISTENT
  }

  private final ResolveImage base;
  private final Map<String, AppDelta> changed = new HashMap<>();

  public ImageDelta(ResolveImage base) {
    this.base = base;
  }

  /** The sequence the next event of {@code appId} should carry: one above the last applied. */
  public long nextSequence(String appId) {
    AppDelta d = changed.get(appId);
    if (d != null) {
      return d.deleted() ? 1 : d.lastSequence() + 1;
    }
    AppImage a = base.app(appId);
    return a == null ? 1 : a.lastSequence() + 1;
  }

  /** Folds one event. */
  public Replayed replay(EventEnvelope e) {
    if (e.sequence() < nextSequence(e.appId())) {
      return Replayed.DUPLICATE;
    }
    AppDelta d = changed.get(e.appId());
    if (d != null && d.deleted()) {
      d = new AppDelta(e.appId(), null); // an app created again with the id of a deleted one starts empty
      changed.put(e.appId(), d);
    }
    return app(e.appId()).replay(e) ? Replayed.APPLIED : Replayed.INCONSISTENT;
  }

  /**
   * Records an event this build cannot read (unknown type or newer schema version): the app's
   * sequence advances so that later events are not reported as a gap.
   */
  public void skip(String appId, long sequence) {
    if (sequence >= nextSequence(appId)) {
      app(appId).skip(sequence);
    }
  }

  /**
   * Replaces the app with its state in a control-plane snapshot, pruned to the edge's window: what a
   * replay of the app's events up to the snapshot gives (the retention rule is monotone in its window).
   */
  public void load(AppSnapshot snapshot) {
    changed.put(snapshot.appId(), SnapshotState.delta(snapshot));
  }

  /**
   * The image {@code base} with each of {@code snapshots} loaded as {@link #load} and {@link #apply} would,
   * one app per task on {@code executor}: an app's image depends only on its snapshot and its previous
   * image, so the result is the same whatever the executor; it is published as one image.
   */
  public static ResolveImage loadAll(ResolveImage base, Collection<AppSnapshot> snapshots, Executor executor) {
    Map<String, CompletableFuture<AppImage>> built = new TreeMap<>();
    for (AppSnapshot s : snapshots) {
      AppImage previous = base.app(s.appId());
      built.put(s.appId(), CompletableFuture.supplyAsync(() -> SnapshotState.delta(s).build(previous), executor));
    }
    if (built.isEmpty()) {
      return base;
    }
    Map<String, AppImage> apps = new HashMap<>(base.apps());
    for (Map.Entry<String, CompletableFuture<AppImage>> b : built.entrySet()) {
      try {
        apps.put(b.getKey(), b.getValue().join());
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
      }
    }
    return new ResolveImage(apps);
  }

  /** Whether no event was replayed since the base image. */
  public boolean isEmpty() {
    return changed.isEmpty();
  }

  /** The next image: the base with every changed app rebuilt. */
  public ResolveImage apply() {
    if (changed.isEmpty()) {
      return base;
    }
    Map<String, AppImage> apps = new HashMap<>(base.apps());
    for (Map.Entry<String, AppDelta> c : changed.entrySet()) {
      if (c.getValue().deleted()) {
        apps.remove(c.getKey());
      } else {
        apps.put(c.getKey(), c.getValue().build(base.app(c.getKey())));
      }
    }
    return new ResolveImage(apps);
  }

  private AppDelta app(String appId) {
    return changed.computeIfAbsent(appId, id -> new AppDelta(id, base.app(id)));
  }
}
