package dev.updraft.edge.image;

import dev.updraft.edge.assets.LaunchAssets;
import dev.updraft.events.Bucketing;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventPayload.AppUpdated;
import dev.updraft.events.EventPayload.BranchDeleted;
import dev.updraft.events.EventPayload.ChannelDeleted;
import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.LaunchAssetStored;
import dev.updraft.events.EventPayload.ManifestsRenewed;
import dev.updraft.events.EventPayload.PatchesComputed;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.Renewal;
import dev.updraft.events.EventPayload.RolledBackToEmbedded;
import dev.updraft.events.EventPayload.Rollout;
import dev.updraft.events.EventPayload.RolloutChanged;
import dev.updraft.events.EventPayload.RolloutFinished;
import dev.updraft.events.EventPayload.RolloutReverted;
import dev.updraft.events.EventPayload.SigningKeyRegistered;
import dev.updraft.events.EventPayload.SigningKeyRetired;
import dev.updraft.events.EventPayload.UpdateGroup;
import dev.updraft.events.EventPayload.UpdatePublished;
import dev.updraft.events.EventPayload.UpdatesDeleted;
import dev.updraft.events.EventType;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes to one app within an {@link ImageDelta}: a mutable copy of the app's state that events
 * are replayed into, then built into a new {@link AppImage}. Confined to the thread that owns the delta.
 */
final class AppDelta {
  private static final Logger LOG = LoggerFactory.getLogger(AppDelta.class);

  private final String appId;
  private long lastSequence;
  /** Ring order; replaced whole (never changed in place) so that an unchanged ring is the same list. */
  private List<SigningKey> keys = List.of();
  private String defaultChannel;
  private final HashMap<String, ChannelMapped> channels;
  private final HashMap<String, GroupState> groups;
  private final HashMap<String, String> groupOfEntry;
  private final HashMap<String, HashMap<String, ArrayList<String>>> lines = new HashMap<>();
  private final LaunchAssets.Builder launchAssets;
  private boolean deleted;

  AppDelta(String appId, AppImage base) {
    this.appId = appId;
    this.launchAssets = new LaunchAssets.Builder(base == null ? null : base.launchAssets);
    if (base == null) {
      channels = new HashMap<>();
      groups = new HashMap<>();
      groupOfEntry = new HashMap<>();
      return;
    }
    lastSequence = base.lastSequence;
    keys = base.keys;
    defaultChannel = base.defaultChannel;
    channels = new HashMap<>(base.channels);
    groups = new HashMap<>(base.groups);
    groupOfEntry = new HashMap<>(base.groupOfEntry);
    for (Map.Entry<String, Map<String, List<String>>> b : base.lines.entrySet()) {
      HashMap<String, ArrayList<String>> byRuntime = new HashMap<>();
      for (Map.Entry<String, List<String>> r : b.getValue().entrySet()) {
        byRuntime.put(r.getKey(), new ArrayList<>(r.getValue()));
      }
      lines.put(b.getKey(), byRuntime);
    }
  }

  long lastSequence() {
    return lastSequence;
  }

  /** Records that an event this build cannot read used up {@code sequence}. */
  void skip(long sequence) {
    lastSequence = Math.max(lastSequence, sequence);
  }

  /**
   * Applies one event: one method per {@link EventType}, dispatched by a switch without default, so a
   * type added to events-schema does not compile here until it has a case. Returns false when the event
   * was consistent with the schema but not with the app's state (a rollout change for a group never
   * published, a group without branch): it is logged and left out, and the sequence still advances.
   */
  boolean replay(EventEnvelope e) {
    lastSequence = Math.max(lastSequence, e.sequence());
    EventPayload p = e.payload(); // EventEnvelope checks that the payload is the type's record
    return switch (e.type()) {
      case APP_CREATED -> appCreated();
      case TOKEN_ISSUED -> tokenIssued();
      case TOKEN_REVOKED -> tokenRevoked();
      case SIGNING_KEY_REGISTERED -> signingKeyRegistered(e, (SigningKeyRegistered) p);
      case CHANNEL_MAPPED -> channelMapped(e, (ChannelMapped) p);
      case UPDATE_PUBLISHED -> updatePublished(e, (UpdatePublished) p);
      case ROLLED_BACK_TO_EMBEDDED -> rolledBackToEmbedded(e, (RolledBackToEmbedded) p);
      case ROLLOUT_CHANGED -> rolloutChanged(e, (RolloutChanged) p);
      case ROLLOUT_FINISHED -> rolloutFinished(e, (RolloutFinished) p);
      case ROLLOUT_REVERTED -> rolloutReverted(e, (RolloutReverted) p);
      case MANIFESTS_RENEWED -> manifestsRenewed(e, (ManifestsRenewed) p);
      case LAUNCH_ASSET_STORED -> launchAssetStored(e, (LaunchAssetStored) p);
      case PATCHES_COMPUTED -> patchesComputed(e, (PatchesComputed) p);
      case BUILD_REGISTERED -> buildRegistered();
      case SIGNING_KEY_RETIRED -> signingKeyRetired(e, (SigningKeyRetired) p);
      case APP_UPDATED -> appUpdated((AppUpdated) p);
      case UPDATES_DELETED -> updatesDeleted(e, (UpdatesDeleted) p);
      case UPDATE_PINNED -> true; // ignored: pins matter to the control plane's retention only
      case BRANCH_DELETED -> GroupRemoval.branch(groups, groupOfEntry, lines, launchAssets, ((BranchDeleted) p).branch());
      case CHANNEL_DELETED -> channels.remove(((ChannelDeleted) p).channel()) != null
          || inconsistent(e, "channel.deleted for an unmapped channel"); // it serves the branch of its name again
      case APP_DELETED -> appDeleted();
      case RETENTION_SET -> true; // ignored: the control plane applies policies as updates.deleted events
    };
  }

  /** Whether the app was deleted: the image drops it (devices get {@code unknown-app}). */
  boolean deleted() {
    return deleted;
  }

  /** The groups leave the image; a device running one is offered what its line serves without them. */
  private boolean updatesDeleted(EventEnvelope e, UpdatesDeleted d) {
    List<String> unknown = GroupRemoval.remove(groups, groupOfEntry, lines, launchAssets, d.groupIds());
    return unknown.isEmpty() || inconsistent(e, "updates.deleted names unknown groupIds=" + unknown);
  }

  private boolean appDeleted() {
    deleted = true;
    return true;
  }

  /** The app exists (this delta does); nothing else to hold. */
  private static boolean appCreated() {
    return true;
  }

  /** Ignored: edges hold no tokens (devices do not authenticate). */
  private static boolean tokenIssued() {
    return true;
  }

  /** Ignored: edges hold no tokens. */
  private static boolean tokenRevoked() {
    return true;
  }

  /**
   * A key joins the ring (replacing one of the same keyid in place) or, in an event written before the
   * key ring, becomes the only key; its re-signed bodies follow.
   */
  private boolean signingKeyRegistered(EventEnvelope e, SigningKeyRegistered k) {
    if (k.keyId() == null) {
      return inconsistent(e, "signing-key.registered without keyId");
    }
    SigningKey key = new SigningKey(k.keyId(), k.certificateSha256(), k.noUpdateDirectiveBody(),
        k.noUpdateDirectiveSignature(), k.certificateChainPem());
    if (!k.joinsRing()) {
      keys = List.of(key);
    } else {
      List<SigningKey> ring = new ArrayList<>(keys);
      int at = indexOf(ring, k.keyId());
      if (at >= 0) {
        ring.set(at, key);
      } else {
        ring.add(key);
      }
      keys = List.copyOf(ring);
    }
    return renew(e, k.resigned());
  }

  /** A key leaves the ring: its signatures are no longer served and its keyid is refused. */
  private boolean signingKeyRetired(EventEnvelope e, SigningKeyRetired r) {
    int at = indexOf(keys, r.keyId());
    if (at < 0) {
      return inconsistent(e, "signing-key.retired for a keyid the app does not have keyId=" + r.keyId());
    }
    List<SigningKey> ring = new ArrayList<>(keys);
    ring.remove(at);
    keys = List.copyOf(ring);
    return true;
  }

  /** The app's settings: its default channel. */
  private boolean appUpdated(AppUpdated u) {
    defaultChannel = u.defaultChannel();
    return true;
  }

  private static int indexOf(List<SigningKey> ring, String keyId) {
    for (int i = 0; i < ring.size(); i++) {
      if (ring.get(i).keyId().equals(keyId)) {
        return i;
      }
    }
    return -1;
  }

  /** Replaces the channel's mapping (and its branch rollout). */
  private boolean channelMapped(EventEnvelope e, ChannelMapped c) {
    if (c.channel() == null || c.branch() == null) {
      return inconsistent(e, "channel.mapped without channel or branch");
    }
    if (c.rollout() != null) {
      checkBucketing(e, c.rollout().rolloutId(), c.rollout().bucketing(), "the channel's own branch " + c.branch());
    }
    channels.put(c.channel(), c);
    return true;
  }

  private boolean updatePublished(EventEnvelope e, UpdatePublished u) {
    return add(e, u.group());
  }

  private boolean rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded r) {
    return add(e, r.group());
  }

  /** A running per-update rollout's new percentage (clamped to 0..100); its bucketing stays. */
  private boolean rolloutChanged(EventEnvelope e, RolloutChanged c) {
    GroupState g = groups.get(c.groupId());
    if (g == null || !g.rolloutActive()) {
      return inconsistent(e, "rollout.changed for a group without a running rollout groupId=" + c.groupId());
    }
    groups.put(c.groupId(), g.withPercentage(Math.max(0, Math.min(100, c.percentage()))));
    return true;
  }

  /** The group now goes to every device. */
  private boolean rolloutFinished(EventEnvelope e, RolloutFinished f) {
    GroupState g = groups.get(f.groupId());
    if (g == null) {
      return inconsistent(e, "rollout.finished for an unknown groupId=" + f.groupId());
    }
    groups.put(f.groupId(), g.finished());
    return true;
  }

  /** The group leaves its line (kept, marked reverted); the replacement, if any, is added. */
  private boolean rolloutReverted(EventEnvelope e, RolloutReverted r) {
    GroupState g = groups.get(r.groupId());
    if (g == null) {
      return inconsistent(e, "rollout.reverted for an unknown groupId=" + r.groupId());
    }
    groups.put(r.groupId(), g.revertedState());
    HashMap<String, ArrayList<String>> byRuntime = lines.get(g.group().branch());
    if (byRuntime != null) {
      ArrayList<String> line = byRuntime.get(g.group().runtimeVersion());
      if (line != null) {
        line.remove(r.groupId());
      }
    }
    return r.replacement() == null || add(e, r.replacement());
  }

  private boolean manifestsRenewed(EventEnvelope e, ManifestsRenewed m) {
    return renew(e, m.renewals());
  }

  /** Where a launch asset's encodings live (the asset route streams them). */
  private boolean launchAssetStored(EventEnvelope e, LaunchAssetStored l) {
    return launchAssets.stored(l) || inconsistent(e, "launch-asset.stored without sha256 or variants");
  }

  /** A group's bundle patches (the patch cache loads those of served groups). */
  private boolean patchesComputed(EventEnvelope e, PatchesComputed p) {
    return launchAssets.computed(p) || inconsistent(e, "patches.computed without groupId");
  }

  /** Ignored: the patches that start from a build's embedded bundle list its update id themselves. */
  private static boolean buildRegistered() {
    return true;
  }

  private boolean add(EventEnvelope e, UpdateGroup g) {
    if (g == null || g.branch() == null || g.runtimeVersion() == null) {
      return inconsistent(e, "update group without branch or runtime version");
    }
    if (groups.containsKey(g.groupId())) {
      return inconsistent(e, "group published twice groupId=" + g.groupId());
    }
    if (g.rollout() != null) {
      checkBucketing(e, g.rollout().rolloutId(), g.rollout().bucketing(),
          g.rollout().controlGroupId() == null ? "no update" : "control group " + g.rollout().controlGroupId());
    }
    groups.put(g.groupId(), GroupState.published(g));
    for (PlatformUpdate u : g.platforms()) {
      if (u.updateId() != null) {
        groupOfEntry.put(u.updateId(), g.groupId());
      }
    }
    lines.computeIfAbsent(g.branch(), b -> new HashMap<>())
        .computeIfAbsent(g.runtimeVersion(), r -> new ArrayList<>())
        .add(g.groupId());
    return true;
  }

  /** New bodies and signatures for entries the app has ({@link UpdateGroup#renewed}). */
  private boolean renew(EventEnvelope e, List<Renewal> renewals) {
    boolean all = true;
    for (Renewal r : renewals) {
      String groupId = r.updateId() == null ? null : groupOfEntry.get(r.updateId());
      GroupState g = groupId == null ? null : groups.get(groupId);
      if (g == null || r.body() == null) {
        all = inconsistent(e, "renewal for an unknown update or without body updateId=" + r.updateId());
        continue;
      }
      groups.put(groupId, g.withGroup(g.group().renewed(Map.of(r.updateId(), r))));
    }
    return all;
  }

  /**
   * Policy for a rollout naming a bucketing algorithm this build does not know (a newer control plane):
   * the event is applied, and below 100 % every device is treated as outside the rollout (the resolver
   * gets no algorithm); logged here, once per event.
   */
  private void checkBucketing(EventEnvelope e, String rolloutId, String bucketing, String outsideGets) {
    if (Bucketing.Algorithm.named(bucketing) == null) {
      LOG.warn("rollout {} buckets devices with {}, unknown to this edge: every device is treated as outside it "
          + "below 100 % and gets {}; upgrade this edge. appId={} sequence={} type={}",
          rolloutId, bucketing, outsideGets, appId, e.sequence(), e.type().wireName());
    }
  }

  private boolean inconsistent(EventEnvelope e, String what) {
    LOG.warn("event left out: {} appId={} sequence={} type={}", what, appId, e.sequence(), e.type().wireName());
    return false;
  }

  /**
   * Builds the app's image: freezes the state and derives the resolve table, reusing the prepared
   * responses of {@code previous} for entries whose bytes did not change (under the same key ring) and
   * preparing only entries a device can currently be served: per line and platform the newest
   * {@link Resolver#FALLBACK_DEPTH} entries, and as many from a running rollout's control down.
   */
  AppImage build(AppImage previous) {
    Map<String, Prepared> reuse = previous == null || previous.keys != keys ? Map.of() : previous.prepared;
    HashMap<String, Prepared> prepared = new HashMap<>();
    HashMap<String, Map<String, RuntimeSlots>> table = new HashMap<>();
    HashMap<String, Map<String, List<String>>> frozenLines = new HashMap<>();
    for (Map.Entry<String, HashMap<String, ArrayList<String>>> b : lines.entrySet()) {
      HashMap<String, RuntimeSlots> byRuntime = new HashMap<>();
      HashMap<String, List<String>> frozenByRuntime = new HashMap<>();
      for (Map.Entry<String, ArrayList<String>> r : b.getValue().entrySet()) {
        List<String> line = r.getValue();
        if (line.isEmpty()) {
          continue;
        }
        frozenByRuntime.put(r.getKey(), List.copyOf(line));
        Slot ios = slot(line, Platforms.IOS, reuse, prepared);
        Slot android = slot(line, Platforms.ANDROID, reuse, prepared);
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
    Prepared noUpdate = noUpdate(previous);
    long bytes = noUpdate.bytes();
    for (Prepared p : prepared.values()) {
      bytes += p.bytes();
    }
    for (GroupState g : groups.values()) {
      for (PlatformUpdate u : g.group().platforms()) {
        bytes += u.body() == null ? 0 : u.body().length();
      }
    }
    return new AppImage(
        appId,
        lastSequence,
        keys,
        defaultChannel,
        Collections.unmodifiableMap(new HashMap<>(channels)),
        Collections.unmodifiableMap(new HashMap<>(groups)),
        Collections.unmodifiableMap(new HashMap<>(groupOfEntry)),
        Collections.unmodifiableMap(frozenLines),
        Collections.unmodifiableMap(table),
        Collections.unmodifiableMap(prepared),
        noUpdate,
        filters(previous),
        bytes,
        launchAssets.build(GroupRemoval.published(groups)));
  }

  private Prepared noUpdate(AppImage previous) {
    if (previous != null && previous.keys == keys) {
      return previous.noUpdate; // same ring (or none): same bytes
    }
    String body = keys.isEmpty() || keys.get(0).noUpdateBody() == null ? AppImage.UNSIGNED_NO_UPDATE : keys.get(0).noUpdateBody();
    return Prepared.noUpdate(body, keys);
  }

  /**
   * The {@code expo-manifest-filters} value of every branch a device can be mapped to: each branch of a
   * line and each branch a channel maps to (first or second), reusing {@code previous}'s values.
   */
  private Map<String, AsciiString> filters(AppImage previous) {
    HashMap<String, AsciiString> out = new HashMap<>();
    Map<String, AsciiString> old = previous == null ? Map.of() : previous.filters;
    for (String branch : lines.keySet()) {
      addFilter(out, old, branch);
    }
    for (ChannelMapped c : channels.values()) {
      addFilter(out, old, c.branch());
      if (c.rollout() != null) {
        addFilter(out, old, c.rollout().branch());
      }
    }
    if (defaultChannel != null && !channels.containsKey(defaultChannel)) {
      addFilter(out, old, defaultChannel);
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
   * the platform's entries newest first, at most {@link Resolver#FALLBACK_DEPTH} from the head and as many
   * from a running rollout's control.
   */
  private Slot slot(List<String> line, String platform, Map<String, Prepared> reuse, Map<String, Prepared> out) {
    List<GroupState> entries = new ArrayList<>();
    for (int i = line.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(line.get(i));
      PlatformUpdate u = g.group().platform(platform);
      if (u != null && u.body() != null) {
        entries.add(g);
      }
    }
    if (entries.isEmpty()) {
      return null;
    }
    GroupState head = entries.get(0);
    Prepared[] fromHead = prepareFrom(entries, 0, platform, reuse, out);
    if (!head.rolloutActive() || head.rolloutPercentage() >= 100 || head.group().rollout() == null) {
      return new Slot(fromHead, null, null, 100, null);
    }
    Rollout r = head.group().rollout();
    Prepared[] fromControl = null;
    GroupState c = r.controlGroupId() == null ? null : groups.get(r.controlGroupId());
    if (c != null && !c.reverted()) {
      int at = entries.indexOf(c);
      if (at > 0) {
        fromControl = prepareFrom(entries, at, platform, reuse, out);
      }
    }
    // null for an algorithm this build does not know: every device is outside (see checkBucketing)
    Bucketing.Algorithm bucketing = Bucketing.Algorithm.named(r.bucketing());
    return new Slot(fromHead, r.rolloutId(), bucketing, head.rolloutPercentage(), fromControl);
  }

  /** The prepared entries of {@code platform} from {@code entries[from]} down, at most {@link Resolver#FALLBACK_DEPTH}. */
  private Prepared[] prepareFrom(List<GroupState> entries, int from, String platform, Map<String, Prepared> reuse,
      Map<String, Prepared> out) {
    int n = Math.min(Resolver.FALLBACK_DEPTH, entries.size() - from);
    Prepared[] p = new Prepared[n];
    for (int i = 0; i < n; i++) {
      UpdateGroup g = entries.get(from + i).group();
      p[i] = prepare(g, g.platform(platform), reuse, out);
    }
    return p;
  }

  private Prepared prepare(UpdateGroup g, PlatformUpdate u, Map<String, Prepared> reuse, Map<String, Prepared> out) {
    Prepared p = out.get(u.updateId());
    if (p != null && p.source() == u) {
      return p;
    }
    p = reuse.get(u.updateId());
    if (p == null || p.source() != u) {
      p = g.rollsBackToEmbedded() ? Prepared.directive(g.groupId(), u, keys) : Prepared.manifest(g.groupId(), u, keys);
    }
    out.put(u.updateId(), p);
    return p;
  }
}
