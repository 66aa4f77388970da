package dev.updraft.edge.log;

import dev.updraft.events.Topics;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The apps whose current transaction in the event log has been read in part: a record carrying
 * {@link Topics#MORE_HEADER} opens (or keeps open) its app's transaction, one without it ends it. The log
 * reader holds its delta while any is open, so no image shows half a command. Reader thread only.
 */
final class OpenTransactions {
  /** An open transaction older than this is published as read (a writer's header that lies, or a truncated log). */
  static final long MAX_OPEN_NANOS = TimeUnit.SECONDS.toNanos(30);

  private final Map<String, Integer> open = new HashMap<>(); // app id -> partition
  private long openedNanos;

  /** Notes a record of {@code partition} keyed by app id {@code key} (null: a record without one, ignored). */
  void see(byte[] key, int partition, Headers headers, long nowNanos) {
    Header more = headers.lastHeader(Topics.MORE_HEADER);
    if (key == null || (more == null && open.isEmpty())) {
      return; // no key, or a command's last (or only) event with none open: nothing to track
    }
    String app = new String(key, StandardCharsets.UTF_8);
    if (more == null) {
      open.remove(app);
      return;
    }
    if (open.isEmpty()) {
      openedNanos = nowNanos;
    }
    open.put(app, partition);
  }

  /** Whether some app's transaction has been read in part. */
  boolean any() {
    return !open.isEmpty();
  }

  /** Whether {@code partition} holds an open transaction. */
  boolean inPartition(int partition) {
    return open.containsValue(partition);
  }

  /** Whether the first of the open transactions was opened more than {@link #MAX_OPEN_NANOS} ago. */
  boolean tooOld(long nowNanos) {
    return any() && nowNanos - openedNanos > MAX_OPEN_NANOS;
  }

  /** The open apps and their partitions, sorted (for a log line). */
  String describe() {
    TreeSet<String> out = new TreeSet<>();
    for (Map.Entry<String, Integer> e : open.entrySet()) {
      out.add(e.getKey() + "@" + e.getValue());
    }
    return out.toString();
  }

  /** Forgets every open transaction (its delta was published). */
  void clear() {
    open.clear();
  }
}
