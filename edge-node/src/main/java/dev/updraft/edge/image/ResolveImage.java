package dev.updraft.edge.image;

import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * The edge's whole resolve state: every app folded from {@code updraft.events}. Immutable and
 * thread-safe; a new image is made by an {@link ImageDelta} and published with one volatile reference
 * swap, so a device request reads one consistent image from start to end (modelled on Kafka's
 * {@code MetadataImage}).
 */
public final class ResolveImage {
  /** The image before any event. */
  public static final ResolveImage EMPTY = new ResolveImage(Map.of());

  private final Map<String, AppImage> apps;
  private final int groups;
  private final long bytes;

  ResolveImage(Map<String, AppImage> apps) {
    this.apps = Collections.unmodifiableMap(apps);
    int g = 0;
    long b = 0;
    for (AppImage a : apps.values()) {
      g += a.groupCount();
      b += a.bytes();
    }
    this.groups = g;
    this.bytes = b;
  }

  /** The app, or null when the log never mentioned it. */
  public AppImage app(String appId) {
    return apps.get(appId);
  }

  public Set<String> appIds() {
    return apps.keySet();
  }

  public int appCount() {
    return apps.size();
  }

  /** Update groups over all apps. */
  public int groupCount() {
    return groups;
  }

  /** Bytes held by bodies and prepared responses over all apps. */
  public long bytes() {
    return bytes;
  }

  Map<String, AppImage> apps() {
    return apps;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResolveImage && ((ResolveImage) o).apps.equals(apps);
  }

  @Override
  public int hashCode() {
    return apps.hashCode();
  }

  @Override
  public String toString() {
    return "ResolveImage{apps=" + apps.values() + "}";
  }
}
