package dev.updraft.controlplane.config;

import dev.updraft.common.Settings;

/**
 * The flags of the work after a publish, validated with the rest of {@link ControlPlaneConfig}. Immutable.
 *
 * @param bases {@code --patch-bases}: previous launch assets a new one is patched against (0: no patches)
 * @param fleetBases {@code --patch-fleet-bases}: the fleet's most common current updates also patched against
 * @param maxBundleBytes {@code --patch-max-bundle-bytes}: bundles above this size are not patched
 * @param fastEncoding {@code --asset-encoding fast}: the zstd, br and gzip copies of assets are made at low
 *     levels (quick, somewhat larger: for development and tests); {@code best} (the default): at the highest
 */
public record PatchFlags(int bases, int fleetBases, long maxBundleBytes, boolean fastEncoding) {
  static PatchFlags from(Settings s) {
    return new PatchFlags(
        s.integer("patch-bases", 5, 0, 50),
        s.integer("patch-fleet-bases", 3, 0, 50),
        s.longValue("patch-max-bundle-bytes", 32L * 1024 * 1024, 1024, 256L * 1024 * 1024),
        s.choice("asset-encoding", "best", "best", "fast").equals("fast"));
  }
}
