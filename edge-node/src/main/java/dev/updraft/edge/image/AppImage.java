package dev.updraft.edge.image;

import dev.updraft.edge.assets.LaunchAssets;
import dev.updraft.events.EventPayload.ChannelMapped;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One app as folded from the log: its state (channels, update groups in publication order per branch
 * and runtime version, signing registration) and, derived from it when the image is built, the resolve
 * table and the prepared responses of every entry a device can be served. Immutable and thread-safe.
 *
 * <p>Equality is on the folded state only: two images folded from the same events are equal however
 * the events were batched. The derived table and prepared bytes are a function of that state.
 */
public final class AppImage {
  /** The unsigned directive an app without a signing key answers "no update" with. */
  static final String UNSIGNED_NO_UPDATE = "{\"type\":\"noUpdateAvailable\"}";

  final String appId;
  final long lastSequence;
  final Signing signing;
  final Map<String, ChannelMapped> channels;
  final Map<String, GroupState> groups;
  final Map<String, String> groupOfEntry;
  /** branch → runtime version → group ids, oldest first; reverted groups are removed. */
  final Map<String, Map<String, List<String>>> lines;

  // derived
  final Map<String, Map<String, RuntimeSlots>> table;
  final Map<String, Prepared> prepared;
  final Prepared noUpdate;
  final long bytes;
  /** Folded state of the asset route: launch assets' encodings and bundle patches. */
  final LaunchAssets launchAssets;

  AppImage(
      String appId,
      long lastSequence,
      Signing signing,
      Map<String, ChannelMapped> channels,
      Map<String, GroupState> groups,
      Map<String, String> groupOfEntry,
      Map<String, Map<String, List<String>>> lines,
      Map<String, Map<String, RuntimeSlots>> table,
      Map<String, Prepared> prepared,
      Prepared noUpdate,
      long bytes,
      LaunchAssets launchAssets) {
    this.appId = appId;
    this.lastSequence = lastSequence;
    this.signing = signing;
    this.channels = channels;
    this.groups = groups;
    this.groupOfEntry = groupOfEntry;
    this.lines = lines;
    this.table = table;
    this.prepared = prepared;
    this.noUpdate = noUpdate;
    this.bytes = bytes;
    this.launchAssets = launchAssets;
  }

  /** The launch assets the asset route serves for this app. */
  public LaunchAssets launchAssets() {
    return launchAssets;
  }

  /** The groups a device can be served now (heads and running rollouts' control groups). */
  public Set<String> servedGroupIds() {
    Set<String> out = new HashSet<>();
    for (Prepared p : prepared.values()) {
      if (p.groupId() != null) {
        out.add(p.groupId());
      }
    }
    return out;
  }

  public String appId() {
    return appId;
  }

  /** The sequence of the last event applied to this app. */
  public long lastSequence() {
    return lastSequence;
  }

  /** Whether the app registered a code-signing key (so devices may ask for signatures). */
  public boolean signs() {
    return signing != null;
  }

  /** The {@code keyid} of the app's signing key, or null. */
  public String keyId() {
    return signing == null ? null : signing.keyId();
  }

  /** Number of update groups ever published (reverted ones included). */
  public int groupCount() {
    return groups.size();
  }

  /** Bytes held: raw bodies plus prepared responses. */
  public long bytes() {
    return bytes;
  }

  /** The prepared {@code noUpdateAvailable} directive (signed when the app has a key). */
  public Prepared noUpdate() {
    return noUpdate;
  }

  Slot slot(String branch, String runtimeVersion, String platform) {
    Map<String, RuntimeSlots> byRuntime = table.get(branch);
    if (byRuntime == null) {
      return null;
    }
    RuntimeSlots rs = byRuntime.get(runtimeVersion);
    return rs == null ? null : rs.of(platform);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AppImage)) {
      return false;
    }
    AppImage a = (AppImage) o;
    return lastSequence == a.lastSequence
        && appId.equals(a.appId)
        && Objects.equals(signing, a.signing)
        && channels.equals(a.channels)
        && groups.equals(a.groups)
        && groupOfEntry.equals(a.groupOfEntry)
        && lines.equals(a.lines)
        && launchAssets.equals(a.launchAssets);
  }

  @Override
  public int hashCode() {
    return Objects.hash(appId, lastSequence, signing, channels, groups, lines);
  }

  @Override
  public String toString() {
    return "AppImage{appId=" + appId + ", lastSequence=" + lastSequence + ", signs=" + signs()
        + ", channels=" + channels.keySet() + ", groups=" + groups.size() + ", lines=" + lines + "}";
  }
}
