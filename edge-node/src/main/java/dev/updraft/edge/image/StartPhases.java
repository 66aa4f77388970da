package dev.updraft.edge.image;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where an edge's start went, phase by phase, in milliseconds: what {@code /readyz} reports as
 * {@code startMillis} and the log line at ready. Phases, in order: {@code jvm} (JVM start to the node's
 * start), {@code kafkaConnect} (the consumer created and the events topic's partitions known),
 * {@code snapshotRead} (the snapshots topic read to its end; each app's snapshot starts decoding as soon as
 * it has arrived), {@code snapshotDecode} (what is left of decompressing and decoding the snapshot bodies), {@code imageBuild} (the image built from them and published),
 * {@code tailReplay} (the events after the snapshots, up to the log end seen at start), {@code warmup},
 * and {@code total} (JVM start to ready). The snapshots are read, decoded and built while the consumer
 * connects, so {@code kafkaConnect} overlaps the three snapshot phases; the others follow one another. A phase
 * that did not run is absent. Thread-safe.
 */
public final class StartPhases {
  private final Map<String, Long> millis = new LinkedHashMap<>();
  private final long jvmStartEpochMillis = jvmStart();

  private static long jvmStart() {
    try {
      return ManagementFactory.getRuntimeMXBean().getStartTime();
    } catch (RuntimeException | LinkageError e) {
      return System.currentTimeMillis();
    }
  }

  /** Records a phase that took {@code nanos}. */
  public void took(String phase, long nanos) {
    put(phase, nanos / 1_000_000);
  }

  /** Records a phase that started at {@code startNanos} ({@link System#nanoTime}) and ends now. */
  public void since(String phase, long startNanos) {
    took(phase, System.nanoTime() - startNanos);
  }

  /** Records {@code jvm}: the JVM's start until now (the node starting). */
  public void jvmToNow() {
    put("jvm", Math.max(0, System.currentTimeMillis() - jvmStartEpochMillis));
  }

  /** Records {@code total}: the JVM's start until now (ready). */
  public void totalToNow() {
    put("total", Math.max(0, System.currentTimeMillis() - jvmStartEpochMillis));
  }

  private synchronized void put(String phase, long ms) {
    millis.put(phase, ms);
  }

  /** The phases so far, in the order they were recorded. */
  public synchronized Map<String, Long> millis() {
    return new LinkedHashMap<>(millis);
  }

  /** The phases as a JSON object ({@code {"jvm":812,...}}). */
  public String json() {
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, Long> e : millis().entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append('"').append(e.getKey()).append("\":").append(e.getValue());
    }
    return b.append('}').toString();
  }

  /** The phases as {@code jvm=812ms kafkaConnect=...} for a log line. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Long> e : millis().entrySet()) {
      if (b.length() > 0) {
        b.append(' ');
      }
      b.append(e.getKey()).append('=').append(e.getValue()).append("ms");
    }
    return b.toString();
  }
}
