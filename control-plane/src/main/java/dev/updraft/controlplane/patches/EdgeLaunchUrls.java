package dev.updraft.controlplane.patches;

import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.ListedAsset;
import dev.updraft.controlplane.storage.StoredAsset;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The storage the commands render manifests with when edges serve launch assets: every call goes to the
 * real storage, except that the launch asset's URL (the one rendered without a file extension) is the
 * edges' asset route {@code <edge-public-url>/apps/<app>/assets/<sha256>}, which negotiates bundle
 * patches and encodings. Every other asset keeps its storage URL. Thread-safe.
 */
public final class EdgeLaunchUrls implements AssetStorage {
  private final AssetStorage storage;
  private final String edgeUrl;

  private EdgeLaunchUrls(AssetStorage storage, String edgeUrl) {
    this.storage = storage;
    this.edgeUrl = edgeUrl;
  }

  /** {@code storage} itself when {@code edgePublicUrl} is null. */
  public static AssetStorage decorate(AssetStorage storage, String edgePublicUrl) {
    return edgePublicUrl == null ? storage : new EdgeLaunchUrls(storage, edgePublicUrl);
  }

  /** The launch-asset URL edges answer for {@code sha256Hex} of {@code appId}. */
  public static String launchUrl(String edgePublicUrl, String appId, String sha256Hex) {
    return edgePublicUrl + "/apps/" + appId + "/assets/" + sha256Hex;
  }

  @Override
  public StoredAsset stat(String appId, String sha256Hex) throws IOException {
    return storage.stat(appId, sha256Hex);
  }

  @Override
  public StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException {
    return storage.put(appId, sha256Hex, file, md5Hex, size, contentType);
  }

  @Override
  public List<ListedAsset> list(String appId) throws IOException {
    return storage.list(appId);
  }

  @Override
  public void delete(String appId, String sha256Hex) throws IOException {
    storage.delete(appId, sha256Hex);
  }

  @Override
  public UrlSource urls(String appId) {
    UrlSource inner = storage.urls(appId);
    return (sha, ext, contentType) ->
        ext == null && ContentTypes.JAVASCRIPT.equals(contentType) ? launchUrl(edgeUrl, appId, sha) : inner.url(sha, ext, contentType);
  }

  @Override
  public Duration urlTtl() {
    return storage.urlTtl();
  }

  @Override
  public InputStream open(String appId, String sha256Hex) throws IOException {
    return storage.open(appId, sha256Hex);
  }

  @Override
  public StoredAsset putVariant(
      String appId, String sha256Hex, String encoding, Path file, String variantSha256, String md5Hex, long size)
      throws IOException {
    return storage.putVariant(appId, sha256Hex, encoding, file, variantSha256, md5Hex, size);
  }

  @Override
  public dev.updraft.controlplane.storage.ImageObjects edgeImages() {
    return storage.edgeImages();
  }

  @Override
  public dev.updraft.controlplane.storage.ImageObjects sourceMaps(String appId) {
    return storage.sourceMaps(appId);
  }

  @Override
  public String describe() {
    return storage.describe() + ", launch assets via edges at " + edgeUrl;
  }

  @Override
  public void close() {
    // the real storage is closed by its owner
  }
}
