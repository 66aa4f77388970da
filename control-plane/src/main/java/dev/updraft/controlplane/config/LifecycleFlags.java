package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.ASSET_PRUNE_GRACE;
import static dev.updraft.controlplane.config.ControlPlaneFlags.ASSET_PRUNE_INTERVAL;
import static dev.updraft.controlplane.config.ControlPlaneFlags.RETENTION_INTERVAL;

import dev.updraft.common.Settings;
import java.time.Duration;

/**
 * When the control plane applies retention policies and prunes stored assets on its own, validated with the
 * rest of {@link ControlPlaneConfig}. Immutable.
 *
 * @param retentionInterval how often every app's retention policies are applied ({@code --retention-interval},
 *     1h; they are also applied right after each publish)
 * @param pruneInterval nullable: off (the default); how often every app's unreferenced assets are pruned
 *     ({@code --asset-prune-interval})
 * @param pruneGrace how long an unreferenced object is kept after it was stored ({@code --asset-prune-grace}, 7d)
 */
public record LifecycleFlags(Duration retentionInterval, Duration pruneInterval, Duration pruneGrace) {
  static LifecycleFlags from(Settings s) {
    return new LifecycleFlags(RETENTION_INTERVAL.read(s), ASSET_PRUNE_INTERVAL.read(s), ASSET_PRUNE_GRACE.read(s));
  }
}
