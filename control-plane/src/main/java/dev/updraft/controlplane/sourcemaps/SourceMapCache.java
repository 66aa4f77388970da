package dev.updraft.controlplane.sourcemaps;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parsed maps by key (app and SHA-256 of the map), least recently used evicted first once their {@link SourceMap#bytes()}
 * sum above the bound; a map alone above the bound is not kept. Thread-safe (one lock; a lookup is a map access). Callers
 * load and parse on a worker thread, never on an event loop.
 */
public final class SourceMapCache {
  private final long maxBytes;
  private final LinkedHashMap<String, SourceMap> maps = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  public SourceMapCache(long maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("a source map cache bound must be >= 0, not " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /** The cached map, or null. */
  public synchronized SourceMap get(String key) {
    return maps.get(key);
  }

  /** Keeps {@code map} (evicting the least recently used beyond the bound). */
  public synchronized void put(String key, SourceMap map) {
    if (map.bytes() > maxBytes) {
      return;
    }
    SourceMap old = maps.put(key, map);
    if (old != null) {
      bytes -= old.bytes();
    }
    bytes += map.bytes();
    Iterator<Map.Entry<String, SourceMap>> it = maps.entrySet().iterator();
    while (bytes > maxBytes && it.hasNext()) {
      Map.Entry<String, SourceMap> e = it.next();
      bytes -= e.getValue().bytes();
      it.remove();
    }
  }

  /** The bytes the cached maps hold. */
  public synchronized long bytes() {
    return bytes;
  }

  /** How many maps are cached. */
  public synchronized int size() {
    return maps.size();
  }
}
