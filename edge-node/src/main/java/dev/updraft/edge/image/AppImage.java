package dev.updraft.edge.image;

import dev.updraft.events.ChannelEvents.ChannelMapped;
import java.util.ArrayList;
import java.util.HashSet;
import io.netty.util.AsciiString;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One app as folded from the log: its state (channels, default channel, update groups in publication
 * order per branch and runtime version, key ring) and, derived from it when the image is built, the
 * resolve table, the prepared responses of every entry a device can be served and the
 * {@code expo-manifest-filters} value of every branch it knows. Immutable and thread-safe.
 *
 * <p>Equality is on the folded state and the prepared bytes (which hold the bodies the groups let go):
 * two images folded from the same events are equal however the events were batched, and whether they
 * started from a snapshot. The derived table is a function of that state.
 */
public final class AppImage {
  /** The unsigned directive an app without a signing key answers "no update" with. */
  static final String UNSIGNED_NO_UPDATE = "{\"type\":\"noUpdateAvailable\"}";

  final String appId;
  final long lastSequence;
  /** The key ring in ring order (the first key is the primary); empty: the app signs nothing. */
  final List<SigningKey> keys;
  /** Nullable: a request without a channel is refused. */
  final String defaultChannel;
  final Map<String, ChannelMapped> channels;
  final Map<String, GroupState> groups;
  final Map<String, String> groupOfEntry;
  /**
   * branch → runtime version → the held group ids, oldest first (reverted ones included: they count toward
   * the retention window, {@link AppDelta#WINDOW}).
   */
  final Map<String, Map<String, List<String>>> lines;

  // derived
  final Map<String, Map<String, RuntimeSlots>> table;
  final Map<String, Prepared> prepared;
  final Prepared noUpdate;
  /** branch → its {@code expo-manifest-filters} value, for every branch of a line or a channel mapping. */
  final Map<String, AsciiString> filters;
  /** "main, k2": the keyids of the ring, for refusals. */
  final String keyIdList;
  final long bytes;
  /** Folded state of the asset route: launch assets' encodings and bundle patches. */
  final LaunchAssets launchAssets;

  AppImage(
      String appId,
      long lastSequence,
      List<SigningKey> keys,
      String defaultChannel,
      Map<String, ChannelMapped> channels,
      Map<String, GroupState> groups,
      Map<String, String> groupOfEntry,
      Map<String, Map<String, List<String>>> lines,
      Map<String, Map<String, RuntimeSlots>> table,
      Map<String, Prepared> prepared,
      Prepared noUpdate,
      Map<String, AsciiString> filters,
      long bytes,
      LaunchAssets launchAssets) {
    this.appId = appId;
    this.lastSequence = lastSequence;
    this.keys = keys;
    this.defaultChannel = defaultChannel;
    this.channels = channels;
    this.groups = groups;
    this.groupOfEntry = groupOfEntry;
    this.lines = lines;
    this.table = table;
    this.prepared = prepared;
    this.noUpdate = noUpdate;
    this.filters = filters;
    StringBuilder ids = new StringBuilder();
    for (SigningKey k : keys) {
      ids.append(ids.length() == 0 ? "" : ", ").append(k.keyId());
    }
    this.keyIdList = ids.toString();
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
    return !keys.isEmpty();
  }

  /** The {@code keyid} of the ring's primary key (its first), or null. */
  public String keyId() {
    return keys.isEmpty() ? null : keys.get(0).keyId();
  }

  /**
   * The index in the key ring of the key devices asking for {@code keyId} are signed with, or -1 when
   * the ring has no such key. Prepared variants are indexed the same way.
   */
  public int keyIndex(String keyId) {
    for (int i = 0, n = keys.size(); i < n; i++) {
      if (keys.get(i).keyId().equals(keyId)) {
        return i;
      }
    }
    return -1;
  }

  /** The keyid of ring key {@code index}: the ring's own instance, so a check-in naming it allocates nothing. */
  public String keyIdAt(int index) {
    return keys.get(index).keyId();
  }

  /** Whether key {@code index} of the ring is in chain mode (its answers carry a {@code certificate_chain} part). */
  public boolean chainMode(int index) {
    return keys.get(index).chainPem() != null;
  }

  /** The keyids of the ring, {@code "main, k2"} (empty when none): what a refusal names. */
  public String keyIds() {
    return keyIdList;
  }

  /** The channel a request without {@code expo-channel-name} is answered for, or null (refused). */
  public String defaultChannel() {
    return defaultChannel;
  }

  /**
   * The {@code expo-manifest-filters} value for devices mapped to {@code branch}
   * ({@code branchname="<branch>"}): prepared for every branch of the image; built here only for a branch
   * the app has never heard of (a device's own channel name, answered "no update"); null when the name
   * cannot be an sf-string.
   */
  public AsciiString filtersFor(String branch) {
    AsciiString f = filters.get(branch);
    return f != null ? f : ManifestFilters.header(branch);
  }

  /** The ids of the update groups held (the retention rule's: reverted ones in the window included). */
  public Set<String> groupIds() {
    return Set.copyOf(groups.keySet());
  }

  /** Number of update groups held (the retention rule's: reverted ones in the window included). */
  public int groupCount() {
    return groups.size();
  }

  /** Bytes held by prepared responses (each body once). */
  public long bytes() {
    return bytes;
  }

  /** The prepared {@code noUpdateAvailable} directive (signed when the app has a key). */
  public Prepared noUpdate() {
    return noUpdate;
  }

  /**
   * The (channel, runtime version) pairs that reach a line of this app: every mapped channel (and every
   * branch of a line under its own name, unless a mapping of that name goes elsewhere), with each runtime
   * version its branch (or its rollout's branch) has. What an edge's warm-up asks for.
   */
  public List<String[]> warmupLines() {
    List<String[]> out = new ArrayList<>();
    Map<String, String> channelToBranch = new java.util.TreeMap<>();
    for (String branch : table.keySet()) {
      channelToBranch.put(branch, branch);
    }
    for (ChannelMapped m : channels.values()) {
      channelToBranch.put(m.channel(), m.branch());
    }
    for (Map.Entry<String, String> e : channelToBranch.entrySet()) {
      Set<String> runtimes = new java.util.TreeSet<>(table.getOrDefault(e.getValue(), Map.of()).keySet());
      ChannelMapped m = channels.get(e.getKey());
      if (m != null && m.rollout() != null) {
        runtimes.addAll(table.getOrDefault(m.rollout().branch(), Map.of()).keySet());
      }
      for (String rv : runtimes) {
        out.add(new String[] {e.getKey(), rv});
      }
    }
    return out;
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
        && keys.equals(a.keys)
        && Objects.equals(defaultChannel, a.defaultChannel)
        && channels.equals(a.channels)
        && groups.equals(a.groups)
        && groupOfEntry.equals(a.groupOfEntry)
        && lines.equals(a.lines)
        && prepared.equals(a.prepared)
        && launchAssets.equals(a.launchAssets);
  }

  @Override
  public int hashCode() {
    return Objects.hash(appId, lastSequence, keys, defaultChannel, channels, groups, lines);
  }

  @Override
  public String toString() {
    return "AppImage{appId=" + appId + ", lastSequence=" + lastSequence + ", signs=" + signs()
        + ", channels=" + channels.keySet() + ", groups=" + groups.size() + ", lines=" + lines + "}";
  }
}
