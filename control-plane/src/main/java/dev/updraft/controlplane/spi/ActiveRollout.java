package dev.updraft.controlplane.spi;

import dev.updraft.events.RolloutEvents.RolloutGuard;
import java.time.Instant;
import java.util.Map;

/**
 * A per-update rollout in progress, as the automatic-revert guard sees it.
 *
 * @param updateIds platform to the manifest id devices report in their check-ins
 * @param controlGroupId nullable
 * @param guard nullable: no automatic revert was asked for
 * @param changedAt when the percentage or guard last changed (or the start)
 */
public record ActiveRollout(
    String appId,
    String groupId,
    String rolloutId,
    String branch,
    String runtimeVersion,
    int percentage,
    String controlGroupId,
    RolloutGuard guard,
    Map<String, String> updateIds,
    Instant startedAt,
    Instant changedAt) {}
