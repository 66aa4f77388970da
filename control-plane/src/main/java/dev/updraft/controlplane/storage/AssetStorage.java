package dev.updraft.controlplane.storage;

import dev.updraft.controlplane.render.UrlSource;
import java.io.IOException;
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

  /** For logs: the kind and location. */
  String describe();

  @Override
  default void close() {}
}
