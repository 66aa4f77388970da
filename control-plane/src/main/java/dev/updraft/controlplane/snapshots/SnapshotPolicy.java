package dev.updraft.controlplane.snapshots;

import dev.updraft.common.Settings;
import java.time.Duration;

/**
 * When the control plane writes an app's snapshot: after {@code --snapshot-interval-events} [1000] events
 * of the app since its last one, or every {@code --snapshot-interval} [10m] for an app with events since
 * its last. {@code --snapshot-interval-events 0} turns snapshots off (every start replays the log).
 */
public record SnapshotPolicy(int everyEvents, Duration every) {
  public static final SnapshotPolicy DEFAULT = new SnapshotPolicy(1000, Duration.ofMinutes(10));

  public static SnapshotPolicy from(Settings s) {
    return new SnapshotPolicy(
        s.integer("snapshot-interval-events", DEFAULT.everyEvents(), 0, 100_000_000),
        s.duration("snapshot-interval", DEFAULT.every()));
  }

  public SnapshotPolicy {
    if (every.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new dev.updraft.common.ConfigException("--snapshot-interval (UPDRAFT_SNAPSHOT_INTERVAL) must be at least 1s: got " + every);
    }
  }

  /** Whether snapshots are written at all. */
  public boolean on() {
    return everyEvents > 0;
  }
}
