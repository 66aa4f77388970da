package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.EDGE_IMAGE_INTERVAL;
import static dev.updraft.controlplane.config.ControlPlaneFlags.EDGE_IMAGE_KEEP;
import static dev.updraft.controlplane.config.ControlPlaneFlags.EDGE_IMAGE_KEY;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.events.ImageSeal;
import java.time.Duration;

/**
 * Whether and how often the control plane writes the edge image to the asset storage, validated with the rest of
 * {@link ControlPlaneConfig}. Immutable; {@link #toString} hides the key.
 *
 * @param seal nullable: off (the default); {@code --edge-image-key} (32 bytes in base64, also given to the edges), the
 *     key every image is encrypted and authenticated with
 * @param interval {@code --edge-image-interval} [1m]: how often a changed log is written as a new image (an unchanged
 *     one every ten intervals, so that its age stays honest)
 * @param keep {@code --edge-image-keep} [3]: images kept in the storage, the newest included; older ones are deleted
 */
public record EdgeImageFlags(ImageSeal seal, Duration interval, int keep) {
  static EdgeImageFlags from(Settings s) {
    String key = EDGE_IMAGE_KEY.read(s);
    Duration interval = EDGE_IMAGE_INTERVAL.read(s);
    int keep = EDGE_IMAGE_KEEP.read(s);
    ImageSeal seal = null;
    if (key != null && !key.isBlank()) {
      try {
        seal = ImageSeal.of(key, "--edge-image-key (UPDRAFT_EDGE_IMAGE_KEY)");
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e.getMessage());
      }
    }
    return new EdgeImageFlags(seal, interval, keep);
  }

  /** Whether images are written. */
  public boolean on() {
    return seal != null;
  }

  @Override
  public String toString() {
    return "EdgeImageFlags{on=" + on() + ", interval=" + interval + ", keep=" + keep + "}";
  }
}
