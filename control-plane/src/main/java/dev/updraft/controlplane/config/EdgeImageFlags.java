package dev.updraft.controlplane.config;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.events.ImageSeal;
import java.time.Duration;
import java.util.Set;

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
  static final Set<String> NAMES = Set.of("edge-image-key", "edge-image-interval", "edge-image-keep");

  static EdgeImageFlags from(Settings s) {
    String key = s.raw("edge-image-key");
    Duration interval = s.duration("edge-image-interval", Duration.ofMinutes(1));
    int keep = s.integer("edge-image-keep", 3, 2, 100);
    if (interval.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException("--edge-image-interval (UPDRAFT_EDGE_IMAGE_INTERVAL) must be at least 1s: got " + interval);
    }
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
