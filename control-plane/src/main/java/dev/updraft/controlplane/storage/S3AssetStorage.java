package dev.updraft.controlplane.storage;

import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * Assets in an S3 (or S3-compatible: R2, MinIO, Ceph, Spaces, Supabase) bucket, object
 * {@code assets/<app>/<sha256>} with its {@code content-type}, an immutable {@code cache-control}, and its
 * MD5 hex and size as user metadata ({@code x-amz-meta-md5hex}, {@code x-amz-meta-size}). Every upload
 * carries {@code Content-MD5}, so the server refuses bytes that arrive damaged or cut short; an S3 object
 * appears whole or not at all, so a publish that finds every asset with {@link #stat} names nothing missing.
 *
 * <p>URLs are either {@code <base-url>/assets/<app>/<sha256>} (a public bucket or a CDN in front of it) or
 * presigned GET URLs (SigV4, computed locally; {@code response-content-type} makes the answer carry the
 * manifest's type whatever the upload said) valid for {@link #urlTtl()}, which the control plane renews
 * before they expire ({@code manifests.renewed}). Credentials come from the AWS default provider chain and
 * are never written anywhere; see {@link S3Connect} for the checks made at start. Thread-safe.
 */
public final class S3AssetStorage implements AssetStorage {
  private static final String IMMUTABLE = "public, max-age=31536000, immutable";
  private static final String MD5_META = "md5hex";
  private static final String SIZE_META = "size";

  private final S3Client s3;
  private final S3Presigner presigner;
  private final String bucket;
  private final String baseUrl;
  private final Duration ttl;
  private final String where;
  private final SdkAutoCloseable credentials;

  /**
   * @param presigner nullable when {@code baseUrl} is set
   * @param baseUrl nullable: without it URLs are presigned for {@code ttl}
   * @param where for messages: endpoint and region, never credentials
   * @param credentials closed with the storage
   */
  S3AssetStorage(
      S3Client s3, S3Presigner presigner, String bucket, String baseUrl, Duration ttl, String where, SdkAutoCloseable credentials) {
    if (baseUrl == null && presigner == null) {
      throw new IllegalArgumentException("presigned URLs need a presigner: bucket=" + bucket);
    }
    this.s3 = s3;
    this.presigner = presigner;
    this.bucket = bucket;
    this.baseUrl = baseUrl;
    this.ttl = ttl;
    this.where = where;
    this.credentials = credentials;
  }

  @Override
  public ImageObjects sourceMaps(String appId) {
    if (!LocalAssetStorage.APP.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad app id for source maps: " + appId);
    }
    return new ImageObjects.S3(s3, bucket, ImageObjects.MAPS_PREFIX + appId + "/");
  }

  @Override
  public ImageObjects edgeImages() {
    return new ImageObjects.S3(s3, bucket);
  }

  static String prefix(String appId) {
    if (!LocalAssetStorage.APP.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad app id appId=" + appId);
    }
    return "assets/" + appId + "/";
  }

  static String key(String appId, String sha256Hex) {
    if (!LocalAssetStorage.SHA.matcher(sha256Hex).matches()) {
      throw new IllegalArgumentException("bad asset address appId=" + appId + " sha256=" + sha256Hex);
    }
    return prefix(appId) + sha256Hex;
  }

  @Override
  public StoredAsset stat(String appId, String sha256Hex) throws IOException {
    String key = key(appId, sha256Hex);
    HeadObjectResponse h;
    try {
      h = s3.headObject(r -> r.bucket(bucket).key(key));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return null;
      }
      throw failure("stat", key, e);
    } catch (SdkException e) {
      throw failure("stat", key, e);
    }
    Map<String, String> meta = h.metadata();
    String md5 = meta.get(MD5_META);
    String size = meta.get(SIZE_META);
    if (md5 == null || size == null) {
      throw new IOException(
          "object s3://" + bucket + "/" + key + " lacks md5hex/size metadata (not uploaded through Updraft); delete it and upload again");
    }
    try {
      return new StoredAsset(sha256Hex, md5, Long.parseLong(size));
    } catch (NumberFormatException e) {
      throw new IOException("object s3://" + bucket + "/" + key + " has a damaged size metadata value: '" + size + "'", e);
    }
  }

  @Override
  public StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException {
    StoredAsset existing = stat(appId, sha256Hex);
    if (existing != null) {
      return existing;
    }
    String key = key(appId, sha256Hex);
    String contentMd5 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(md5Hex));
    try {
      s3.putObject(
          r -> r.bucket(bucket)
              .key(key)
              .contentType(contentType)
              .cacheControl(IMMUTABLE)
              .contentLength(size)
              .contentMD5(contentMd5)
              .metadata(Map.of(MD5_META, md5Hex, SIZE_META, Long.toString(size))),
          RequestBody.fromFile(file));
    } catch (SdkException e) {
      throw failure("upload of " + size + " bytes", key, e);
    }
    return new StoredAsset(sha256Hex, md5Hex, size);
  }

  @Override
  public List<ListedAsset> list(String appId) throws IOException {
    String prefix = prefix(appId);
    List<ListedAsset> out = new ArrayList<>();
    String token = null;
    try {
      do {
        String t = token;
        ListObjectsV2Response page =
            s3.listObjectsV2(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).continuationToken(t).build());
        for (S3Object o : page.contents()) {
          String name = o.key().substring(prefix.length());
          if (LocalAssetStorage.SHA.matcher(name).matches()) {
            out.add(new ListedAsset(name, o.size(), o.lastModified()));
          }
        }
        token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
      } while (token != null);
    } catch (SdkException e) {
      throw failure("list", prefix, e);
    }
    return out;
  }

  @Override
  public void delete(String appId, String sha256Hex) throws IOException {
    String key = key(appId, sha256Hex);
    try {
      s3.deleteObject(r -> r.bucket(bucket).key(key));
    } catch (S3Exception e) {
      if (e.statusCode() != 404) {
        throw failure("delete", key, e);
      }
    } catch (SdkException e) {
      throw failure("delete", key, e);
    }
  }

  @Override
  public UrlSource urls(String appId) {
    String prefix = prefix(appId);
    if (baseUrl != null) {
      return (sha, ext, contentType) -> baseUrl + "/" + key(appId, sha);
    }
    return (sha, ext, contentType) -> {
      String url =
          presigner
              .presignGetObject(
                  p -> p.signatureDuration(ttl).getObjectRequest(r -> r.bucket(bucket).key(prefix + sha).responseContentType(contentType)))
              .url()
              .toString();
      if (url.contains("X-Amz-Security-Token=")) {
        // temporary credentials (a role, SSO, STS): the URL would carry the session token into the event log
        throw new IllegalStateException(
            "the AWS credentials turned temporary (a session token); presigned asset URLs would carry it into manifests and the event log."
                + " Use long-lived access keys, or --s3-public-base-url (a CDN or a public bucket)");
      }
      return url;
    };
  }

  @Override
  public Duration urlTtl() {
    return baseUrl == null ? ttl : null;
  }

  @Override
  public String describe() {
    return "s3 bucket=" + bucket + " " + where + (baseUrl == null ? " presigned URLs ttl=" + ttl : " baseUrl=" + baseUrl);
  }

  @Override
  public void close() {
    s3.close();
    if (presigner != null) {
      presigner.close();
    }
    credentials.close();
  }

  private IOException failure(String what, String key, SdkException e) {
    String status = e instanceof S3Exception ? " (HTTP " + ((S3Exception) e).statusCode() + ")" : "";
    return new IOException("S3 " + what + " failed for s3://" + bucket + "/" + key + " " + where + status + ": " + e.getMessage(), e);
  }
}
