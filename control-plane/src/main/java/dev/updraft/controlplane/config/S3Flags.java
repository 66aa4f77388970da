package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.S3_PATH_STYLE;
import static dev.updraft.controlplane.config.ControlPlaneFlags.S3_PRESIGN_TTL;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.storage.S3Connect;
import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The {@code --s3-*} flags of {@code --storage s3}, validated with the rest of {@link ControlPlaneConfig}.
 * Credentials are deliberately not among them: they come from the AWS default provider chain only.
 * Immutable.
 *
 * @param bucket nullable unless storage is s3
 * @param endpoint nullable: AWS's own endpoint
 * @param region nullable: the AWS default region chain
 * @param publicBaseUrl nullable: presigned URLs valid for {@code presignTtl}
 */
public record S3Flags(String bucket, URI endpoint, String region, boolean pathStyle, String publicBaseUrl, Duration presignTtl) {
  /** Longest a SigV4 presigned URL may be valid (S3's own limit). */
  public static final Duration MAX_PRESIGN_TTL = Duration.ofDays(7);

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,40}");

  static S3Flags from(Settings s, boolean chosen) {
    String bucket = s.raw("s3-bucket");
    String endpoint = s.raw("s3-endpoint");
    String region = s.raw("s3-region");
    String base = s.raw("s3-public-base-url");
    boolean pathStyle = S3_PATH_STYLE.read(s);
    // bounds checked only when this storage is chosen, as before the flag table
    Duration ttl = chosen ? S3_PRESIGN_TTL.read(s) : s.duration(S3_PRESIGN_TTL.name(), MAX_PRESIGN_TTL);
    if (!chosen) {
      if (bucket != null || endpoint != null || base != null) {
        throw new ConfigException("--s3-bucket, --s3-endpoint and --s3-public-base-url need --storage s3");
      }
      return new S3Flags(null, null, null, false, null, ttl);
    }
    if (bucket == null) {
      throw new ConfigException("--s3-bucket (UPDRAFT_S3_BUCKET) is required with --storage s3");
    }
    if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
      throw new ConfigException(
          "--s3-bucket (UPDRAFT_S3_BUCKET) must be a bucket name (3-63 lower-case letters, digits, dots and dashes): got '" + bucket + "'");
    }
    if (region != null && !REGION.matcher(region).matches()) {
      throw new ConfigException("--s3-region (UPDRAFT_S3_REGION) must be a region name such as eu-west-1 or auto: got '" + region + "'");
    }
    URI uri = endpoint == null ? null : URI.create(ControlPlaneConfig.checkUrl("s3-endpoint", endpoint));
    if (uri != null && uri.getRawPath() != null && !uri.getRawPath().isEmpty()) {
      throw new ConfigException(
          "--s3-endpoint (UPDRAFT_S3_ENDPOINT) is the store's base URL without a path (the bucket goes in --s3-bucket): got '" + endpoint + "'");
    }
    String publicBase = base == null ? null : ControlPlaneConfig.checkUrl("s3-public-base-url", base);
    return new S3Flags(bucket, uri, region, pathStyle, publicBase, ttl);
  }

  /** What {@link S3Connect} needs. */
  public S3Connect.Options options() {
    return new S3Connect.Options(bucket, endpoint, region, pathStyle, publicBaseUrl, presignTtl);
  }

  @Override
  public String toString() {
    return "S3Flags{bucket=" + bucket + ", endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle
        + ", publicBaseUrl=" + publicBaseUrl + ", presignTtl=" + presignTtl + "}";
  }
}
