package dev.updraft.controlplane.storage;

import com.google.auth.ServiceAccountSigner;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Assets in a Google Cloud Storage bucket, object {@code assets/<app>/<sha256>} with its
 * {@code content-type}, an immutable {@code cache-control}, and its MD5 hex and size as custom metadata.
 *
 * <p>URLs are either {@code <base-url>/assets/<app>/<sha256>} (a public bucket or a CDN in front of it)
 * or V4 signed URLs valid for {@link #urlTtl()}; a signed URL is computed locally (no network) with the
 * service account's key. Because manifests carry these URLs and are signed at publish time, the control
 * plane renders fresh manifests before the URLs expire (a {@code manifests.renewed} event). Thread-safe.
 */
public final class GcsAssetStorage implements AssetStorage {
  private static final String IMMUTABLE = "public, max-age=31536000, immutable";

  private final Storage storage;
  private final String bucket;
  private final String baseUrl;
  private final Duration ttl;
  private final ServiceAccountSigner signer;

  /**
   * @param baseUrl nullable: without it URLs are V4 signed
   * @param signer nullable: sign with the client's own credentials
   */
  public GcsAssetStorage(Storage storage, String bucket, String baseUrl, Duration ttl, ServiceAccountSigner signer) {
    this.storage = storage;
    this.bucket = bucket;
    this.baseUrl = baseUrl;
    this.ttl = ttl;
    this.signer = signer;
  }

  static String objectName(String appId, String sha256Hex) {
    if (!LocalAssetStorage.APP.matcher(appId).matches() || !LocalAssetStorage.SHA.matcher(sha256Hex).matches()) {
      throw new IllegalArgumentException("bad asset address appId=" + appId + " sha256=" + sha256Hex);
    }
    return "assets/" + appId + "/" + sha256Hex;
  }

  @Override
  public ImageObjects sourceMaps(String appId) {
    if (!LocalAssetStorage.APP.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad app id for source maps: " + appId);
    }
    return new ImageObjects.Gcs(storage, bucket, ImageObjects.MAPS_PREFIX + appId + "/");
  }

  @Override
  public ImageObjects edgeImages() {
    return new ImageObjects.Gcs(storage, bucket);
  }

  @Override
  public StoredAsset stat(String appId, String sha256Hex) throws IOException {
    try {
      Blob b = storage.get(BlobId.of(bucket, objectName(appId, sha256Hex)));
      if (b == null) {
        return null;
      }
      Map<String, String> meta = b.getMetadata();
      if (meta == null || meta.get("md5hex") == null || meta.get("size") == null) {
        throw new IOException("object gs://" + bucket + "/" + b.getName() + " lacks md5hex/size metadata; delete it and upload again");
      }
      return new StoredAsset(sha256Hex, meta.get("md5hex"), Long.parseLong(meta.get("size")));
    } catch (StorageException e) {
      throw new IOException("GCS stat failed for bucket=" + bucket + " sha256=" + sha256Hex + ": " + e.getMessage(), e);
    }
  }

  @Override
  public StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException {
    StoredAsset existing = stat(appId, sha256Hex);
    if (existing != null) {
      return existing;
    }
    BlobInfo info =
        BlobInfo.newBuilder(BlobId.of(bucket, objectName(appId, sha256Hex)))
            .setContentType(contentType)
            .setCacheControl(IMMUTABLE)
            .setMetadata(Map.of("md5hex", md5Hex, "size", Long.toString(size)))
            .build();
    try {
      storage.createFrom(info, file);
    } catch (StorageException e) {
      throw new IOException("GCS upload failed for bucket=" + bucket + " sha256=" + sha256Hex + ": " + e.getMessage(), e);
    }
    return new StoredAsset(sha256Hex, md5Hex, size);
  }

  @Override
  public InputStream open(String appId, String sha256Hex) throws IOException {
    BlobId id = BlobId.of(bucket, objectName(appId, sha256Hex));
    try {
      if (storage.get(id) == null) {
        throw new NoSuchFileException("gs://" + bucket + "/" + id.getName());
      }
      return Channels.newInputStream(storage.reader(id));
    } catch (StorageException e) {
      throw new IOException("GCS read failed for bucket=" + bucket + " sha256=" + sha256Hex + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<ListedAsset> list(String appId) throws IOException {
    String prefix = "assets/" + appId + "/";
    objectName(appId, "0".repeat(64)); // checks the app id
    List<ListedAsset> out = new ArrayList<>();
    try {
      for (Blob b : storage.list(bucket, Storage.BlobListOption.prefix(prefix)).iterateAll()) {
        String name = b.getName().substring(prefix.length());
        if (LocalAssetStorage.SHA.matcher(name).matches()) {
          OffsetDateTime created = b.getCreateTimeOffsetDateTime();
          OffsetDateTime at = created != null ? created : b.getUpdateTimeOffsetDateTime();
          out.add(new ListedAsset(name, b.getSize() == null ? 0 : b.getSize(), at == null ? Instant.EPOCH : at.toInstant()));
        }
      }
    } catch (StorageException e) {
      throw new IOException("GCS list failed for bucket=" + bucket + " prefix=" + prefix + ": " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  public void delete(String appId, String sha256Hex) throws IOException {
    try {
      storage.delete(BlobId.of(bucket, objectName(appId, sha256Hex)));
    } catch (StorageException e) {
      throw new IOException("GCS delete failed for bucket=" + bucket + " sha256=" + sha256Hex + ": " + e.getMessage(), e);
    }
  }

  @Override
  public UrlSource urls(String appId) {
    if (baseUrl != null) {
      return (sha, ext, contentType) -> baseUrl + "/" + objectName(appId, sha);
    }
    return (sha, ext, contentType) -> {
      BlobInfo info = BlobInfo.newBuilder(BlobId.of(bucket, objectName(appId, sha))).build();
      Storage.SignUrlOption[] opts =
          signer == null
              ? new Storage.SignUrlOption[] {Storage.SignUrlOption.withV4Signature()}
              : new Storage.SignUrlOption[] {Storage.SignUrlOption.withV4Signature(), Storage.SignUrlOption.signWith(signer)};
      return storage.signUrl(info, ttl.toSeconds(), TimeUnit.SECONDS, opts).toString();
    };
  }

  @Override
  public Duration urlTtl() {
    return baseUrl == null ? ttl : null;
  }

  @Override
  public String describe() {
    return "gcs bucket=" + bucket + (baseUrl == null ? " signed URLs ttl=" + ttl : " baseUrl=" + baseUrl);
  }

  @Override
  public void close() {
    try {
      storage.close();
    } catch (Exception e) {
      // nothing to release for the HTTP transport
    }
  }
}
