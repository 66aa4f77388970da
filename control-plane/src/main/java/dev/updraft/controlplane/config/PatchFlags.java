package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.ASSET_ENCODING;
import static dev.updraft.controlplane.config.ControlPlaneFlags.PATCH_BASES;
import static dev.updraft.controlplane.config.ControlPlaneFlags.PATCH_FLEET_BASES;
import static dev.updraft.controlplane.config.ControlPlaneFlags.PATCH_MAX_BUNDLE_BYTES;

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
        PATCH_BASES.read(s),
        PATCH_FLEET_BASES.read(s),
        PATCH_MAX_BUNDLE_BYTES.read(s),
        ASSET_ENCODING.read(s).equals("fast"));
  }
}
