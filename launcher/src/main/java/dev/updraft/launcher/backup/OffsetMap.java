package dev.updraft.launcher.backup;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where each event of the backup landed in the restored log: per partition, the offsets it had (ascending)
 * and the offsets it got (ascending too: a partition is written in its order). The old log's offsets include
 * aborted records and transaction markers that the new one lacks, so the two differ; snapshot records name
 * positions of the old log and are rewritten through this map. Filled by one thread, then read-only.
 */
final class OffsetMap {
  private final Map<Integer, long[]> olds = new TreeMap<>();
  private final Map<Integer, long[]> news = new TreeMap<>();

  /** A partition of {@code records} events: its old offsets now, its new ones as they are acknowledged. */
  void partition(int partition, long records) {
    if (records > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("partition=" + partition + " has " + records + " records: more than one restore can map");
    }
    long[] o = new long[(int) records];
    long[] n = new long[(int) records];
    Arrays.fill(o, -1);
    Arrays.fill(n, -1);
    olds.put(partition, o);
    news.put(partition, n);
  }

  void old(int partition, int index, long offset) {
    olds.get(partition)[index] = offset;
  }

  void landed(int partition, int index, long offset) {
    news.get(partition)[index] = offset;
  }

  /**
   * Checks that every event has landed and that both sequences ascend (the partition was written in its
   * order); throws naming the partition and index otherwise.
   */
  void check() {
    for (Map.Entry<Integer, long[]> e : olds.entrySet()) {
      long[] o = e.getValue();
      long[] n = news.get(e.getKey());
      for (int i = 0; i < o.length; i++) {
        if (n[i] < 0 || o[i] < 0) {
          throw new IllegalStateException("event " + i + " of partition=" + e.getKey() + " has no offset (old " + o[i] + ", new " + n[i] + ")");
        }
        if (i > 0 && (o[i] <= o[i - 1] || n[i] <= n[i - 1])) {
          throw new IllegalStateException("partition=" + e.getKey() + " is out of order at event " + i + ": old " + o[i - 1] + " then " + o[i]
              + ", new " + n[i - 1] + " then " + n[i]);
        }
      }
    }
  }

  /** The new offset of the event that had {@code oldOffset}, or -1 when no event of the backup had it. */
  long exact(int partition, long oldOffset) {
    long[] o = olds.get(partition);
    if (o == null) {
      return -1;
    }
    int i = Arrays.binarySearch(o, oldOffset);
    return i >= 0 ? news.get(partition)[i] : -1;
  }

  /**
   * Where a reader that needed the old log from {@code oldOffset} must start in the new one: the new offset of
   * the first event at or after it, or the offset after the partition's last event when none is (0 for a
   * partition without events).
   */
  long from(int partition, long oldOffset) {
    long[] o = olds.get(partition);
    if (o == null || o.length == 0) {
      return 0;
    }
    long[] n = news.get(partition);
    int i = Arrays.binarySearch(o, oldOffset);
    int at = i >= 0 ? i : -i - 1;
    return at < o.length ? n[at] : n[o.length - 1] + 1;
  }

  /** {@code partition: old first..last -> new first..last} per partition with events, for the summary. */
  String describe() {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<Integer, long[]> e : olds.entrySet()) {
      long[] o = e.getValue();
      if (o.length == 0) {
        continue;
      }
      long[] n = news.get(e.getKey());
      if (b.length() > 0) {
        b.append(", ");
      }
      b.append(e.getKey()).append(": ").append(o[0]).append("..").append(o[o.length - 1]).append(" -> ").append(n[0]).append("..")
          .append(n[n.length - 1]);
    }
    return b.length() == 0 ? "no events" : b.toString();
  }
}
