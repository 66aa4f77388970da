package dev.updraft.controlplane.config;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Set;

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
  static final Set<String> NAMES = Set.of("retention-interval", "asset-prune-interval", "asset-prune-grace");

  static LifecycleFlags from(Settings s) {
    Duration retention = s.duration("retention-interval", Duration.ofHours(1));
    Duration prune = s.raw("asset-prune-interval") == null ? null : s.duration("asset-prune-interval", null);
    Duration grace = s.duration("asset-prune-grace", Duration.ofDays(7));
    if (retention.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException("--retention-interval (UPDRAFT_RETENTION_INTERVAL) must be at least 1s: got " + retention);
    }
    if (prune != null && prune.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new ConfigException("--asset-prune-interval (UPDRAFT_ASSET_PRUNE_INTERVAL) must be at least 1m: got " + prune);
    }
    if (grace.compareTo(Duration.ofHours(1)) < 0) {
      throw new ConfigException(
          "--asset-prune-grace (UPDRAFT_ASSET_PRUNE_GRACE) must be at least 1h (a publish may still use an upload): got " + grace);
    }
    return new LifecycleFlags(retention, prune, grace);
  }
}
