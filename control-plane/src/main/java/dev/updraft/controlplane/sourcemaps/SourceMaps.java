package dev.updraft.controlplane.sourcemaps;

import dev.updraft.controlplane.storage.AssetStorage;
import java.io.IOException;

/**
 * Reads an app's source maps from the storage's private area ({@link AssetStorage#sourceMaps}) through a
 * {@link SourceMapCache}. Blocking: call on a worker thread. Thread-safe (two callers may parse the same map once each).
 */
public final class SourceMaps {
  /** The cache's bound when none is configured: 64 MiB of parsed maps (a small app's map parses to a few MiB). */
  public static final long DEFAULT_CACHE_BYTES = 64L << 20;

  private final AssetStorage storage;
  private final SourceMapCache cache;

  public SourceMaps(AssetStorage storage, SourceMapCache cache) {
    this.storage = storage;
    this.cache = cache;
  }

  /** The object name of a map in an app's private area. */
  public static String objectName(String sha256) {
    return sha256 + ".map";
  }

  /**
   * The parsed map, or null when none is stored under {@code sha256}.
   *
   * @throws IOException when the storage cannot be read
   * @throws InvalidSourceMapException when the stored bytes are not a map (only maps that parsed are stored)
   */
  public SourceMap load(String appId, String sha256) throws IOException, InvalidSourceMapException {
    String key = appId + "/" + sha256;
    SourceMap m = cache.get(key);
    if (m != null) {
      return m;
    }
    byte[] bytes = storage.sourceMaps(appId).read(objectName(sha256));
    if (bytes == null) {
      return null;
    }
    m = SourceMap.parse(bytes);
    cache.put(key, m);
    return m;
  }

  public SourceMapCache cache() {
    return cache;
  }
}
