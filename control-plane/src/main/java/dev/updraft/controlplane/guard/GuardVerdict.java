package dev.updraft.controlplane.guard;

import dev.updraft.events.EventPayload;
import java.time.Instant;
import java.util.List;

/**
 * Whether a rollout's guard fires, with the numbers behind the decision.
 *
 * @param fire revert the rollout: {@link #trigger()} exceeded the guard
 * @param reason one line with the numbers, for the {@code rollout.reverted} event's {@code reason} (or for
 *     a log line when it does not fire)
 * @param windowStart the start of the window: devices first served an update before it are not counted
 * @param total all the rollout's updates together
 * @param perUpdate each update (platform) on its own, in the order given
 * @param trigger the check that exceeded the guard (the total when it did, else the worst update); null
 *     when the guard does not fire
 */
public record GuardVerdict(
    boolean fire,
    String reason,
    EventPayload.RolloutGuard guard,
    Instant asOf,
    Instant windowStart,
    GuardCheck total,
    List<GuardCheck> perUpdate,
    GuardCheck trigger) {
  public GuardVerdict {
    perUpdate = List.copyOf(perUpdate);
  }
}
