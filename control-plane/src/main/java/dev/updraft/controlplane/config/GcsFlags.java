package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.GCS_CREDENTIALS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.GCS_SIGNED_URL_TTL;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The {@code --gcs-*} flags of {@code --storage gcs}, validated with the rest of {@link ControlPlaneConfig}. Immutable.
 *
 * @param bucket nullable unless storage is gcs
 * @param baseUrl nullable: without it, asset URLs are V4 signed URLs renewed before they expire
 * @param signedUrlTtl 1h..7d (the V4 maximum)
 * @param credentials nullable: application default credentials
 */
public record GcsFlags(String bucket, String baseUrl, Duration signedUrlTtl, Path credentials) {
  static GcsFlags from(Settings s, boolean chosen, String storage) {
    String bucket = s.raw("gcs-bucket");
    String base = s.raw("gcs-base-url");
    String baseUrl = base == null ? null : ControlPlaneConfig.checkUrl("gcs-base-url", base);
    Duration ttl = GCS_SIGNED_URL_TTL.read(s);
    if (chosen && bucket == null) {
      throw new ConfigException("--gcs-bucket (UPDRAFT_GCS_BUCKET) is required with --storage gcs");
    }
    if (!chosen && (bucket != null || baseUrl != null)) {
      throw new ConfigException("--gcs-bucket and --gcs-base-url need --storage gcs (storage is " + storage + ")");
    }
    return new GcsFlags(bucket, baseUrl, ttl, GCS_CREDENTIALS.read(s));
  }
}
