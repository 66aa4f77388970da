package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventHandler;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import dev.updraft.events.EventType;
import dev.updraft.events.Retention;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The changes to one app within an {@link ImageDelta}: a mutable copy of the app's state that events
 * are replayed into, then built into a new {@link AppImage}. Confined to the thread that owns the delta.
 */
final class AppDelta implements EventHandler<Boolean> {
  private static final Logger LOG = LoggerFactory.getLogger(AppDelta.class);

  /** Groups per line the edge holds: every entry the failed-update fallback can answer with. */
  static final int WINDOW = Retention.EDGE_WINDOW;

  final String appId;
  long lastSequence;
  /** Ring order; replaced whole (never changed in place) so that an unchanged ring is the same list. */
  List<SigningKey> keys = List.of();
  String defaultChannel;
  final HashMap<String, ChannelMapped> channels;
  /** The groups the retention rule holds ({@link Retention}, {@link #WINDOW} per line). */
  final HashMap<String, GroupState> groups;
  final HashMap<String, String> groupOfEntry;
  /** branch → runtime version → held group ids, oldest first (reverted ones included: they count toward the window). */
  final HashMap<String, HashMap<String, ArrayList<String>>> lines = new HashMap<>();
  final LaunchAssets.Builder launchAssets;
  boolean deleted;

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
   * Applies one event: one method per {@link EventType}, as this delta is the log's {@link EventHandler}, so a
   * type added to events-schema does not compile here until it has its method. Returns false when the event
   * was consistent with the schema but not with the app's state (a rollout change for a group never
   * published, a group without branch): it is logged and left out, and the sequence still advances.
   */
  boolean replay(EventEnvelope e) {
    lastSequence = Math.max(lastSequence, e.sequence());
    return dispatch(e);
  }

  /** Ignored: pins matter to the control plane's retention only. */
  @Override
  public Boolean updatePinned(EventEnvelope e, UpdatePinned p) {
    return true;
  }

  /** Ignored: the control plane applies policies as {@code updates.deleted} events. */
  @Override
  public Boolean retentionSet(EventEnvelope e, RetentionSet r) {
    return true;
  }

  /** Every group on the branch leaves the image. */
  @Override
  public Boolean branchDeleted(EventEnvelope e, BranchDeleted b) {
    return GroupRemoval.branch(groups, groupOfEntry, lines, launchAssets, b.branch());
  }

  /** The channel serves the branch of its name again. */
  @Override
  public Boolean channelDeleted(EventEnvelope e, ChannelDeleted c) {
    return channels.remove(c.channel()) != null || inconsistent(e, "channel.deleted for an unmapped channel");
  }

  /** Whether the app was deleted: the image drops it (devices get {@code unknown-app}). */
  boolean deleted() {
    return deleted;
  }

  /**
   * The groups leave the image; a device running one is offered what its line serves without them. Groups
   * the image does not hold are no inconsistency: the retention rule dropped them before (retention policies
   * delete old groups).
   */
  @Override
  public Boolean updatesDeleted(EventEnvelope e, UpdatesDeleted d) {
    GroupRemoval.remove(groups, groupOfEntry, lines, launchAssets, d.groupIds());
    return true;
  }

  @Override
  public Boolean appDeleted(EventEnvelope e, AppDeleted d) {
    deleted = true;
    return true;
  }

  /** The app exists (this delta does); nothing else to hold. */
  @Override
  public Boolean appCreated(EventEnvelope e, AppCreated c) {
    return true;
  }

  /** Ignored: edges hold no tokens (devices do not authenticate). */
  @Override
  public Boolean tokenIssued(EventEnvelope e, TokenIssued t) {
    return true;
  }

  /** Ignored: edges hold no tokens. */
  @Override
  public Boolean tokenRevoked(EventEnvelope e, TokenRevoked t) {
    return true;
  }

  /**
   * A key joins the ring (replacing one of the same keyid in place) or, in an event written before the
   * key ring, becomes the only key; its re-signed bodies follow.
   */
  @Override
  public Boolean signingKeyRegistered(EventEnvelope e, SigningKeyRegistered k) {
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
  @Override
  public Boolean signingKeyRetired(EventEnvelope e, SigningKeyRetired r) {
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
  @Override
  public Boolean appUpdated(EventEnvelope e, AppUpdated u) {
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
  @Override
  public Boolean channelMapped(EventEnvelope e, ChannelMapped c) {
    if (c.channel() == null || c.branch() == null) {
      return inconsistent(e, "channel.mapped without channel or branch");
    }
    if (c.rollout() != null) {
      checkBucketing(e, c.rollout().rolloutId(), c.rollout().bucketing(), "the channel's own branch " + c.branch());
    }
    channels.put(c.channel(), c);
    return true;
  }

  @Override
  public Boolean updatePublished(EventEnvelope e, UpdatePublished u) {
    return add(e, u.group());
  }

  @Override
  public Boolean rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded r) {
    return add(e, r.group());
  }

  /** A running per-update rollout's new percentage (clamped to 0..100); its bucketing stays. */
  @Override
  public Boolean rolloutChanged(EventEnvelope e, RolloutChanged c) {
    GroupState g = groups.get(c.groupId());
    if (g == null || !g.rolloutActive()) {
      return inconsistent(e, "rollout.changed for a group without a running rollout groupId=" + c.groupId());
    }
    groups.put(c.groupId(), g.withPercentage(Math.max(0, Math.min(100, c.percentage()))));
    return true;
  }

  /** The group now goes to every device (its control group is no longer held for it). */
  @Override
  public Boolean rolloutFinished(EventEnvelope e, RolloutFinished f) {
    GroupState g = groups.get(f.groupId());
    if (g == null) {
      return inconsistent(e, "rollout.finished for an unknown groupId=" + f.groupId());
    }
    groups.put(f.groupId(), g.finished());
    retain(g.group().branch(), g.group().runtimeVersion());
    return true;
  }

  /**
   * The group is no longer served (it stays in its line, marked reverted, without its bodies: it counts
   * toward the window but is never served again); the replacement, if any, is added.
   */
  @Override
  public Boolean rolloutReverted(EventEnvelope e, RolloutReverted r) {
    GroupState g = groups.get(r.groupId());
    if (g == null) {
      return inconsistent(e, "rollout.reverted for an unknown groupId=" + r.groupId());
    }
    groups.put(r.groupId(), g.revertedState());
    boolean ok = r.replacement() == null || add(e, r.replacement());
    retain(g.group().branch(), g.group().runtimeVersion());
    return ok;
  }

  @Override
  public Boolean manifestsRenewed(EventEnvelope e, ManifestsRenewed m) {
    return renew(e, m.renewals());
  }

  /** Where a launch asset's encodings live (the asset route streams them). */
  @Override
  public Boolean launchAssetStored(EventEnvelope e, LaunchAssetStored l) {
    return launchAssets.stored(l) || inconsistent(e, "launch-asset.stored without sha256 or variants");
  }

  /**
   * A group's bundle patches (the patch cache loads those of served groups); ignored for a group the image
   * does not hold (dropped by the retention rule: nothing can serve them).
   */
  @Override
  public Boolean patchesComputed(EventEnvelope e, PatchesComputed p) {
    if (p.groupId() != null && !groups.containsKey(p.groupId())) {
      return true;
    }
    return launchAssets.computed(p) || inconsistent(e, "patches.computed without groupId");
  }

  /** Ignored: the patches that start from a build's embedded bundle list its update id themselves. */
  @Override
  public Boolean buildRegistered(EventEnvelope e, BuildRegistered b) {
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
    retain(g.branch(), g.runtimeVersion());
    return true;
  }

  /**
   * Drops the groups of one line the retention rule no longer holds ({@link Retention#held}), with their
   * entries and patches: after every event that adds a group or ends a rollout, so that the image is a
   * function of the events alone.
   */
  void retain(String branch, String runtimeVersion) {
    HashMap<String, ArrayList<String>> byRuntime = lines.get(branch);
    ArrayList<String> line = byRuntime == null ? null : byRuntime.get(runtimeVersion);
    if (line == null || line.size() <= WINDOW) {
      return;
    }
    List<Retention.Entry> entries = new ArrayList<>(line.size());
    for (int i = line.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(line.get(i));
      Rollout r = g.group().rollout();
      entries.add(new Retention.Entry(g.group().groupId(), g.rolloutActive(), r == null ? null : r.controlGroupId()));
    }
    Set<String> held = Retention.held(entries, WINDOW, id -> false);
    for (Iterator<String> it = line.iterator(); it.hasNext(); ) {
      String id = it.next();
      if (held.contains(id)) {
        continue;
      }
      it.remove();
      GroupState gone = groups.remove(id);
      for (PlatformUpdate u : gone.group().platforms()) {
        if (u.updateId() != null && id.equals(groupOfEntry.get(u.updateId()))) {
          groupOfEntry.remove(u.updateId());
        }
      }
      launchAssets.dropGroup(id);
    }
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

  /** Builds the app's image ({@link ImageBuild}). Called once, when the delta is applied. */
  AppImage build(AppImage previous) {
    return ImageBuild.build(this, previous);
  }
}
