package dev.updraft.edge.log;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.events.ImageSeal;
import java.util.Set;

/**
 * Where an edge with no image of its own under {@code --data-dir} reads the newest one the control plane wrote to
 * the asset storage, validated at start. Immutable; {@link #toString} hides the key.
 *
 * @param location {@code --image-source}: a directory ({@code file:} URL or path), {@code s3://bucket/prefix}, or an
 *     {@code http(s)://} URL prefix (a query, such as an Azure SAS token, is kept)
 * @param s3Endpoint {@code --image-s3-endpoint}: nullable, AWS's endpoint of the region (an S3-compatible store's URL)
 * @param s3Region {@code --image-s3-region}: nullable, {@code AWS_REGION} or {@code us-east-1}
 * @param seal {@code --edge-image-key}: the control plane's key the image is sealed with
 */
public record ImageSource(String location, String s3Endpoint, String s3Region, ImageSeal seal) {
  /** The flags, without dashes. */
  public static final Set<String> FLAGS = Set.of("image-source", "image-s3-endpoint", "image-s3-region", "edge-image-key");

  /** The configured source, or null without {@code --image-source}. */
  public static ImageSource from(Settings s) {
    String location = s.raw("image-source");
    String key = s.raw("edge-image-key");
    if (location == null || location.isBlank()) {
      if (s.raw("image-s3-endpoint") != null || s.raw("image-s3-region") != null) {
        throw new ConfigException("--image-s3-endpoint and --image-s3-region need --image-source s3://BUCKET/PREFIX");
      }
      return null;
    }
    if (key == null || key.isBlank()) {
      throw new ConfigException("--image-source needs --edge-image-key (UPDRAFT_EDGE_IMAGE_KEY): the key the control plane seals"
          + " its edge images with");
    }
    String endpoint = s.raw("image-s3-endpoint");
    if (endpoint != null && !endpoint.startsWith("http://") && !endpoint.startsWith("https://")) {
      throw new ConfigException("--image-s3-endpoint (UPDRAFT_IMAGE_S3_ENDPOINT) must be an http(s) URL: got '" + endpoint + "'");
    }
    if (location.startsWith("s3://") && location.length() <= 5) {
      throw new ConfigException("--image-source s3://BUCKET/PREFIX needs a bucket: got '" + location + "'");
    }
    try {
      return new ImageSource(location.trim(), endpoint, s.raw("image-s3-region"), ImageSeal.of(key, "--edge-image-key (UPDRAFT_EDGE_IMAGE_KEY)"));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The reader of the images at this source. */
  StorageImage open(io.micrometer.core.instrument.MeterRegistry registry) {
    return new StorageImage(ImageFetch.of(location, s3Endpoint, s3Region), seal, registry);
  }

  @Override
  public String toString() {
    return "ImageSource[location=" + ImageFetch.of(location, s3Endpoint, s3Region).describe() + ", key hidden]";
  }
}
