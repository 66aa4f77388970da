package dev.updraft.controlplane.state;

import dev.updraft.events.RolloutEvents.RolloutGuard;
import java.time.Instant;

/**
 * A per-update rollout as it stands now.
 *
 * @param controlGroupId nullable: no earlier update on the branch and runtime version
 * @param guard nullable
 * @param status {@link #ACTIVE}, {@link #FINISHED} or {@link #REVERTED}
 */
public record RolloutState(
    String rolloutId,
    int percentage,
    String controlGroupId,
    RolloutGuard guard,
    String status,
    Instant startedAt,
    Instant changedAt) {
  public static final String ACTIVE = "active";
  public static final String FINISHED = "finished";
  public static final String REVERTED = "reverted";

  public boolean active() {
    return ACTIVE.equals(status);
  }
}
