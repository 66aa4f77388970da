package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds an {@link AppImage} from an {@link AppDelta}: freezes the state and derives the resolve table.
 * Every entry of a held group that is not reverted is prepared once ({@link Prepared}), reusing the
 * previous image's prepared entry when its bytes did not change under the same key ring; the prepared
 * entry then holds the body, and the group keeps its entry without it (the event's copy is let go).
 * Confined to the delta's thread.
 */
final class ImageBuild {
  private final AppDelta d;
  private final AppImage previous;
  private final HashMap<String, Prepared> prepared = new HashMap<>();

  private ImageBuild(AppDelta d, AppImage previous) {
    this.d = d;
    this.previous = previous;
  }

  static AppImage build(AppDelta d, AppImage previous) {
    return new ImageBuild(d, previous).build();
  }

  private AppImage build() {
    prepareAll();
    HashMap<String, Map<String, RuntimeSlots>> table = new HashMap<>();
    HashMap<String, Map<String, List<String>>> frozenLines = new HashMap<>();
    for (Map.Entry<String, HashMap<String, ArrayList<String>>> b : d.lines.entrySet()) {
      HashMap<String, RuntimeSlots> byRuntime = new HashMap<>();
      HashMap<String, List<String>> frozenByRuntime = new HashMap<>();
      for (Map.Entry<String, ArrayList<String>> r : b.getValue().entrySet()) {
        List<String> line = r.getValue();
        if (line.isEmpty()) {
          continue;
        }
        frozenByRuntime.put(r.getKey(), List.copyOf(line));
        Slot ios = slot(line, Platforms.IOS);
        Slot android = slot(line, Platforms.ANDROID);
        if (ios != null || android != null) {
          byRuntime.put(r.getKey(), new RuntimeSlots(ios, android));
        }
      }
      if (!frozenByRuntime.isEmpty()) {
        frozenLines.put(b.getKey(), Collections.unmodifiableMap(frozenByRuntime));
      }
      if (!byRuntime.isEmpty()) {
        table.put(b.getKey(), Collections.unmodifiableMap(byRuntime));
      }
    }
    Prepared noUpdate = noUpdate();
    long bytes = noUpdate.bytes();
    for (Prepared p : prepared.values()) {
      bytes += p.bytes();
    }
    return new AppImage(
        d.appId,
        d.lastSequence,
        d.keys,
        d.defaultChannel,
        Collections.unmodifiableMap(new HashMap<>(d.channels)),
        Collections.unmodifiableMap(new HashMap<>(d.groups)),
        Collections.unmodifiableMap(new HashMap<>(d.groupOfEntry)),
        Collections.unmodifiableMap(frozenLines),
        Collections.unmodifiableMap(table),
        Collections.unmodifiableMap(prepared),
        noUpdate,
        filters(),
        bytes,
        d.launchAssets.build());
  }

  /**
   * Prepares every entry of every held group that is not reverted, and lets the groups keep their entries
   * without bodies (the prepared entry holds them).
   */
  private void prepareAll() {
    boolean sameRing = previous != null && previous.keys == d.keys;
    for (GroupState g : new ArrayList<>(d.groups.values())) {
      if (g.reverted()) {
        continue;
      }
      UpdateGroup group = g.group();
      List<PlatformUpdate> held = null;
      for (int i = 0; i < group.platforms().size(); i++) {
        PlatformUpdate u = group.platforms().get(i);
        if (u.updateId() == null) {
          continue;
        }
        Prepared old = previous == null ? null : previous.prepared.get(u.updateId());
        boolean same = old != null && old.source() == u;
        if (same && sameRing) {
          prepared.put(u.updateId(), old);
          continue;
        }
        String body = u.body() != null ? u.body() : same ? old.body() : null;
        if (body == null) {
          continue; // an entry without a body: nothing to serve
        }
        PlatformUpdate bare = u.body() == null ? u : GroupState.bare(u);
        prepared.put(u.updateId(), Prepared.entry(group.rollsBackToEmbedded(), group.groupId(), bare, body, d.keys));
        if (bare != u) {
          held = held == null ? new ArrayList<>(group.platforms()) : held;
          held.set(i, bare);
        }
      }
      if (held != null) {
        d.groups.put(group.groupId(), g.withGroup(group.withPlatforms(held)));
      }
    }
  }

  private Prepared noUpdate() {
    if (previous != null && previous.keys == d.keys) {
      return previous.noUpdate; // same ring (or none): same bytes
    }
    List<SigningKey> keys = d.keys;
    String body = keys.isEmpty() || keys.get(0).noUpdateBody() == null ? AppImage.UNSIGNED_NO_UPDATE : keys.get(0).noUpdateBody();
    return Prepared.noUpdate(body, keys);
  }

  /**
   * The {@code expo-manifest-filters} value of every branch a device can be mapped to: each branch of a
   * line and each branch a channel maps to (first or second), reusing {@code previous}'s values.
   */
  private Map<String, AsciiString> filters() {
    HashMap<String, AsciiString> out = new HashMap<>();
    Map<String, AsciiString> old = previous == null ? Map.of() : previous.filters;
    for (String branch : d.lines.keySet()) {
      addFilter(out, old, branch);
    }
    for (ChannelMapped c : d.channels.values()) {
      addFilter(out, old, c.branch());
      if (c.rollout() != null) {
        addFilter(out, old, c.rollout().branch());
      }
    }
    if (d.defaultChannel != null && !d.channels.containsKey(d.defaultChannel)) {
      addFilter(out, old, d.defaultChannel);
    }
    return Collections.unmodifiableMap(out);
  }

  private static void addFilter(Map<String, AsciiString> out, Map<String, AsciiString> old, String branch) {
    if (branch == null || out.containsKey(branch)) {
      return;
    }
    AsciiString f = old.get(branch);
    f = f != null ? f : ManifestFilters.header(branch);
    if (f != null) {
      out.put(branch, f);
    }
  }

  /**
   * The slot of {@code platform} for one line (group ids oldest first), or null when no group has it:
   * the platform's entries not reverted, newest first, at most {@link Resolver#FALLBACK_DEPTH} from the
   * head and as many from a running rollout's control.
   */
  private Slot slot(List<String> line, String platform) {
    List<GroupState> entries = new ArrayList<>();
    for (int i = line.size() - 1; i >= 0; i--) {
      GroupState g = d.groups.get(line.get(i));
      PlatformUpdate u = g.group().platform(platform);
      if (!g.reverted() && u != null && u.updateId() != null && prepared.containsKey(u.updateId())) {
        entries.add(g);
      }
    }
    if (entries.isEmpty()) {
      return null;
    }
    GroupState head = entries.get(0);
    Prepared[] fromHead = from(entries, 0, platform);
    if (!head.rolloutActive() || head.rolloutPercentage() >= 100 || head.group().rollout() == null) {
      return new Slot(fromHead, null, null, 100, null);
    }
    Rollout r = head.group().rollout();
    Prepared[] fromControl = null;
    GroupState c = r.controlGroupId() == null ? null : d.groups.get(r.controlGroupId());
    if (c != null && !c.reverted()) {
      int at = entries.indexOf(c);
      if (at > 0) {
        fromControl = from(entries, at, platform);
      }
    }
    // null for an algorithm this build does not know: every device is outside (see AppDelta.checkBucketing)
    Bucketing.Algorithm bucketing = Bucketing.Algorithm.named(r.bucketing());
    return new Slot(fromHead, r.rolloutId(), bucketing, head.rolloutPercentage(), fromControl);
  }

  /** The prepared entries of {@code platform} from {@code entries[from]} down, at most {@link Resolver#FALLBACK_DEPTH}. */
  private Prepared[] from(List<GroupState> entries, int from, String platform) {
    int n = Math.min(Resolver.FALLBACK_DEPTH, entries.size() - from);
    Prepared[] p = new Prepared[n];
    for (int i = 0; i < n; i++) {
      p[i] = prepared.get(entries.get(from + i).group().platform(platform).updateId());
    }
    return p;
  }
}
