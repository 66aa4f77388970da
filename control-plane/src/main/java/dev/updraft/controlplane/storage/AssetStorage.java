package dev.updraft.controlplane.storage;

import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Where asset bytes live, addressed by app and SHA-256. Implementations are thread-safe; every method
 * may block (call them off the event loop).
 */
public interface AssetStorage extends AutoCloseable {

  /** What is stored at the address, or null when nothing is. */
  StoredAsset stat(String appId, String sha256Hex) throws IOException;

  /**
   * Stores {@code file}, whose SHA-256, MD5 and size the caller has verified. Storing the same bytes again
   * is harmless; stored bytes are never replaced.
   */
  StoredAsset put(String appId, String sha256Hex, Path file, String md5Hex, long size, String contentType)
      throws IOException;

  /**
   * Every asset stored for the app, in no particular order (a later asset prune reads sizes and ages from
   * it). Files that are not assets (temporary or metadata files) are left out.
   */
  List<ListedAsset> list(String appId) throws IOException;

  /**
   * Deletes the asset's bytes. Deleting what is not stored is harmless. The caller makes sure no manifest
   * that devices may still be served names it.
   */
  void delete(String appId, String sha256Hex) throws IOException;

  /** Absolute URLs devices fetch an app's assets from. */
  UrlSource urls(String appId);

  /** How long a URL from {@link #urls} stays valid, or null when URLs never expire. */
  Duration urlTtl();

  /**
   * Opens the bytes stored at the address (the caller closes the stream). The default fetches them from
   * the URL {@link #urls} gives, so any storage whose URLs this process can reach can be read; local
   * storage and GCS read directly.
   *
   * @throws java.nio.file.NoSuchFileException when nothing is stored there
   */
  default InputStream open(String appId, String sha256Hex) throws IOException {
    String url = urls(appId).url(sha256Hex, null, ContentTypes.OCTET_STREAM);
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build();
    HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(5)).header("accept-encoding", "identity").GET().build();
    HttpResponse<InputStream> res;
    try {
      res = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted reading sha256=" + sha256Hex + " of app " + appId, e);
    }
    if (res.statusCode() == 404) {
      res.body().close();
      throw new java.nio.file.NoSuchFileException("app " + appId + " sha256=" + sha256Hex);
    }
    if (res.statusCode() != 200) {
      res.body().close();
      throw new IOException("reading sha256=" + sha256Hex + " of app " + appId + " from storage answered HTTP " + res.statusCode());
    }
    return res.body();
  }

  /**
   * Stores {@code file}, the {@code encoding} ({@code gzip}, {@code br}, {@code zstd}) of the stored asset
   * {@code sha256Hex}, under its own SHA-256 {@code variantSha256} like any asset (so {@link #urls} names
   * it); local storage also keeps it beside the asset so that its route can answer that encoding.
   */
  default StoredAsset putVariant(
      String appId, String sha256Hex, String encoding, Path file, String variantSha256, String md5Hex, long size)
      throws IOException {
    return put(appId, variantSha256, file, md5Hex, size, ContentTypes.OCTET_STREAM);
  }

  /**
   * Whether every one of {@code encodings} of the stored asset {@code sha256Hex} is stored already, so that a
   * later group publishing the same bytes need not encode them again; false when this storage cannot tell
   * cheaply (the asset is then encoded, and its content-addressed copies stored, again).
   */
  default boolean hasVariants(String appId, String sha256Hex, java.util.List<String> encodings) throws IOException {
    return false;
  }

  /**
   * The area beside the assets where the control plane writes the edge images ({@link ImageObjects}): never named
   * in a manifest, read by edges with the storage's credentials ({@code --image-source}).
   */
  ImageObjects edgeImages();

  /**
   * The app's source maps (uploaded at publish, read to resolve the top frames of reported errors): private objects
   * beside the assets, under {@link ImageObjects#MAPS_PREFIX}{@code <app>/} ({@link ImageObjects#MAPS_LOCAL_DIR}
   * on a disk), named {@code <sha256>.map}. Never named in a manifest nor served by any route: a map reveals the source.
   */
  ImageObjects sourceMaps(String appId);

  /** For logs: the kind and location. */
  String describe();

  @Override
  default void close() {}
}
