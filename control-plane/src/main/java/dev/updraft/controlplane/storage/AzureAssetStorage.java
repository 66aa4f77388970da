package dev.updraft.controlplane.storage;

import com.azure.core.util.BinaryData;
import com.azure.core.util.Context;
import com.azure.storage.blob.BlobClient;
import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.models.BlobErrorCode;
import com.azure.storage.blob.models.BlobHttpHeaders;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobProperties;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.storage.blob.sas.BlobSasPermission;
import com.azure.storage.blob.sas.BlobServiceSasSignatureValues;
import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * Assets in an Azure Blob Storage container, block blob {@code assets/<app>/<sha256>} with its
 * {@code content-type}, an immutable {@code cache-control}, its {@code Content-MD5} property, and its MD5 hex
 * and size as metadata ({@code x-ms-meta-md5hex}, {@code x-ms-meta-size}). Every upload is one Put Blob with a
 * transactional {@code Content-MD5} (the service refuses bytes that arrive damaged or cut short, and a blob
 * appears whole or not at all) and {@code If-None-Match: *} (stored bytes are never replaced).
 *
 * <p>URLs are either {@code <base-url>/assets/<app>/<sha256>} (a public container or a CDN in front of it) or
 * blob URLs with a service SAS (read only, {@code rsct} set to the manifest's type, signed locally with the
 * account key) valid for {@link #urlTtl()}, which the control plane renews before they expire
 * ({@code manifests.renewed}). The account key or SAS token is never written into a message. See
 * {@link AzureConnect} for the checks made at start. Thread-safe.
 */
public final class AzureAssetStorage implements AssetStorage {
  private static final String IMMUTABLE = "public, max-age=31536000, immutable";
  private static final String MD5_META = "md5hex";
  private static final String SIZE_META = "size";
  private static final Duration CALL_TIMEOUT = Duration.ofMinutes(30); // every try of a call (AzureConnect bounds each)

  private final BlobContainerClient container;
  private final String baseUrl;
  private final Duration ttl;
  private final String where;

  /**
   * @param container a client holding the account key when {@code baseUrl} is null (it signs the SAS URLs)
   * @param baseUrl nullable: without it URLs carry a service SAS valid for {@code ttl}
   * @param where for messages: the account URL and container, never a credential
   */
  @Override
  public ImageObjects sourceMaps(String appId) {
    if (!LocalAssetStorage.APP.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad app id for source maps: " + appId);
    }
    return new ImageObjects.Azure(container, ImageObjects.MAPS_PREFIX + appId + "/");
  }

  @Override
  public ImageObjects edgeImages() {
    return new ImageObjects.Azure(container);
  }

  AzureAssetStorage(BlobContainerClient container, String baseUrl, Duration ttl, String where) {
    this.container = container;
    this.baseUrl = baseUrl;
    this.ttl = ttl;
    this.where = where;
  }

  private BlobClient blob(String appId, String sha256Hex) {
    return container.getBlobClient(S3AssetStorage.key(appId, sha256Hex));
  }

  @Override
  public StoredAsset stat(String appId, String sha256Hex) throws IOException {
    String name = S3AssetStorage.key(appId, sha256Hex);
    BlobProperties p;
    try {
      p = container.getBlobClient(name).getProperties();
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 404) {
        return null;
      }
      throw failure("stat", name, e);
    } catch (RuntimeException e) {
      throw failure("stat", name, e);
    }
    Map<String, String> meta = p.getMetadata();
    String md5 = meta == null ? null : meta.get(MD5_META);
    String size = meta == null ? null : meta.get(SIZE_META);
    if (md5 == null || size == null) {
      throw new IOException("blob " + name + " (" + where + ") lacks md5hex/size metadata (not uploaded through Updraft); delete it and upload again");
    }
    try {
      return new StoredAsset(sha256Hex, md5, Long.parseLong(size));
    } catch (NumberFormatException e) {
      throw new IOException("blob " + name + " (" + where + ") has a damaged size metadata value: '" + size + "'", e);
    }
  }

  @Override
  public StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException {
    StoredAsset existing = stat(appId, sha256Hex);
    if (existing != null) {
      return existing;
    }
    String name = S3AssetStorage.key(appId, sha256Hex);
    byte[] md5 = HexFormat.of().parseHex(md5Hex);
    BlockBlobSimpleUploadOptions upload =
        new BlockBlobSimpleUploadOptions(BinaryData.fromFile(file))
            .setHeaders(new BlobHttpHeaders().setContentType(contentType).setCacheControl(IMMUTABLE).setContentMd5(md5))
            .setMetadata(Map.of(MD5_META, md5Hex, SIZE_META, Long.toString(size)))
            .setContentMd5(md5)
            .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
    try {
      container.getBlobClient(name).getBlockBlobClient().uploadWithResponse(upload, CALL_TIMEOUT, Context.NONE);
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 409 && BlobErrorCode.BLOB_ALREADY_EXISTS.equals(e.getErrorCode())) {
        StoredAsset raced = stat(appId, sha256Hex); // stored meanwhile by another upload of the same bytes
        if (raced != null) {
          return raced;
        }
      }
      throw failure("upload of " + size + " bytes", name, e);
    } catch (RuntimeException e) {
      throw failure("upload of " + size + " bytes", name, e);
    }
    return new StoredAsset(sha256Hex, md5Hex, size);
  }

  @Override
  public InputStream open(String appId, String sha256Hex) throws IOException {
    String name = S3AssetStorage.key(appId, sha256Hex);
    try {
      return container.getBlobClient(name).openInputStream();
    } catch (BlobStorageException e) {
      if (e.getStatusCode() == 404) {
        throw new NoSuchFileException("azure blob " + name + " (" + where + ")");
      }
      throw failure("read", name, e);
    } catch (RuntimeException e) {
      throw failure("read", name, e);
    }
  }

  @Override
  public List<ListedAsset> list(String appId) throws IOException {
    String prefix = S3AssetStorage.prefix(appId);
    List<ListedAsset> out = new ArrayList<>();
    try {
      for (BlobItem b : container.listBlobs(new ListBlobsOptions().setPrefix(prefix), CALL_TIMEOUT)) {
        String name = b.getName().substring(prefix.length());
        if (LocalAssetStorage.SHA.matcher(name).matches()) {
          OffsetDateTime created = b.getProperties().getCreationTime();
          OffsetDateTime at = created != null ? created : b.getProperties().getLastModified();
          Long length = b.getProperties().getContentLength();
          out.add(new ListedAsset(name, length == null ? 0 : length, at == null ? Instant.EPOCH : at.toInstant()));
        }
      }
    } catch (RuntimeException e) {
      throw failure("list", prefix, e);
    }
    return out;
  }

  @Override
  public void delete(String appId, String sha256Hex) throws IOException {
    String name = S3AssetStorage.key(appId, sha256Hex);
    try {
      blob(appId, sha256Hex).deleteIfExists();
    } catch (RuntimeException e) {
      throw failure("delete", name, e);
    }
  }

  @Override
  public UrlSource urls(String appId) {
    S3AssetStorage.prefix(appId); // checks the app id
    if (baseUrl != null) {
      return (sha, ext, contentType) -> baseUrl + "/" + S3AssetStorage.key(appId, sha);
    }
    return (sha, ext, contentType) -> {
      BlobClient b = blob(appId, sha);
      BlobServiceSasSignatureValues sas =
          new BlobServiceSasSignatureValues(OffsetDateTime.now(ZoneOffset.UTC).plus(ttl), new BlobSasPermission().setReadPermission(true))
              .setContentType(contentType);
      // the SDK's blob URL escapes the slashes of the name; a plain path is what a CDN or a reader expects
      return container.getBlobContainerUrl() + "/" + S3AssetStorage.key(appId, sha) + "?" + b.generateSas(sas);
    };
  }

  @Override
  public Duration urlTtl() {
    return baseUrl == null ? ttl : null;
  }

  @Override
  public String describe() {
    return "azure " + where + (baseUrl == null ? " SAS URLs ttl=" + ttl : " baseUrl=" + baseUrl);
  }

  private IOException failure(String what, String name, RuntimeException e) {
    String status = "";
    if (e instanceof BlobStorageException b) {
      status = " (HTTP " + b.getStatusCode() + (b.getErrorCode() == null ? "" : " " + b.getErrorCode()) + ")";
    }
    return new IOException("Azure " + what + " failed for blob " + name + " (" + where + ")" + status + ": " + AzureConnect.firstLine(e.getMessage()), e);
  }
}
