package dev.updraft.edge.image;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.Renewal;
import dev.updraft.events.EventPayload.UpdateGroup;
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
  private Signing signing;
  private final HashMap<String, ChannelMapped> channels;
  private final HashMap<String, GroupState> groups;
  private final HashMap<String, String> groupOfEntry;
  private final HashMap<String, HashMap<String, ArrayList<String>>> lines = new HashMap<>();

  AppDelta(String appId, AppImage base) {
    this.appId = appId;
    if (base == null) {
      channels = new HashMap<>();
      groups = new HashMap<>();
      groupOfEntry = new HashMap<>();
      return;
    }
    lastSequence = base.lastSequence;
    signing = base.signing;
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
   * Applies one event. Returns false when the event was consistent with the schema but not with the
   * app's state (a rollout change for a group never published, a group without branch): it is logged
   * and left out, and the sequence still advances.
   */
  boolean replay(EventEnvelope e) {
    lastSequence = Math.max(lastSequence, e.sequence());
    EventPayload p = e.payload();
    if (p instanceof EventPayload.AppCreated
        || p instanceof EventPayload.TokenIssued
        || p instanceof EventPayload.TokenRevoked) {
      return true; // existence only; edges hold no tokens
    } else if (p instanceof EventPayload.SigningKeyRegistered) {
      EventPayload.SigningKeyRegistered k = (EventPayload.SigningKeyRegistered) p;
      signing = new Signing(k.keyId(), k.certificateSha256(), k.noUpdateDirectiveBody(), k.noUpdateDirectiveSignature());
      return renew(e, k.resigned());
    } else if (p instanceof ChannelMapped) {
      ChannelMapped c = (ChannelMapped) p;
      if (c.channel() == null || c.branch() == null) {
        return inconsistent(e, "channel.mapped without channel or branch");
      }
      channels.put(c.channel(), c);
      return true;
    } else if (p instanceof EventPayload.UpdatePublished) {
      return add(e, ((EventPayload.UpdatePublished) p).group());
    } else if (p instanceof EventPayload.RolledBackToEmbedded) {
      return add(e, ((EventPayload.RolledBackToEmbedded) p).group());
    } else if (p instanceof EventPayload.RolloutChanged) {
      EventPayload.RolloutChanged c = (EventPayload.RolloutChanged) p;
      GroupState g = groups.get(c.groupId());
      if (g == null || !g.rolloutActive()) {
        return inconsistent(e, "rollout.changed for a group without a running rollout groupId=" + c.groupId());
      }
      groups.put(c.groupId(), g.withPercentage(Math.max(0, Math.min(100, c.percentage()))));
      return true;
    } else if (p instanceof EventPayload.RolloutFinished) {
      EventPayload.RolloutFinished f = (EventPayload.RolloutFinished) p;
      GroupState g = groups.get(f.groupId());
      if (g == null) {
        return inconsistent(e, "rollout.finished for an unknown groupId=" + f.groupId());
      }
      groups.put(f.groupId(), g.finished());
      return true;
    } else if (p instanceof EventPayload.RolloutReverted) {
      return revert(e, (EventPayload.RolloutReverted) p);
    } else if (p instanceof EventPayload.ManifestsRenewed) {
      return renew(e, ((EventPayload.ManifestsRenewed) p).renewals());
    }
    // a payload type added to events-schema without a case here: a bug in this build
    throw new IllegalStateException("no fold for event type=" + e.type().wireName() + " appId=" + appId);
  }

  private boolean add(EventEnvelope e, UpdateGroup g) {
    if (g == null || g.branch() == null || g.runtimeVersion() == null) {
      return inconsistent(e, "update group without branch or runtime version");
    }
    if (groups.containsKey(g.groupId())) {
      return inconsistent(e, "group published twice groupId=" + g.groupId());
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

  private boolean revert(EventEnvelope e, EventPayload.RolloutReverted r) {
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

  private boolean renew(EventEnvelope e, List<Renewal> renewals) {
    boolean all = true;
    for (Renewal r : renewals) {
      String groupId = r.updateId() == null ? null : groupOfEntry.get(r.updateId());
      GroupState g = groupId == null ? null : groups.get(groupId);
      if (g == null || r.body() == null) {
        all = inconsistent(e, "renewal for an unknown update or without body updateId=" + r.updateId());
        continue;
      }
      List<PlatformUpdate> platforms = new ArrayList<>(g.group().platforms());
      for (int i = 0; i < platforms.size(); i++) {
        PlatformUpdate u = platforms.get(i);
        if (r.updateId().equals(u.updateId())) {
          platforms.set(i, new PlatformUpdate(
              u.platform(), u.updateId(), u.createdAt(), r.body(), r.signature(), u.launchAssetKey(), u.assetKeys()));
        }
      }
      UpdateGroup old = g.group();
      UpdateGroup renewed = new UpdateGroup(old.groupId(), old.kind(), old.branch(), old.runtimeVersion(), old.message(),
          old.gitCommitHash(), old.idempotencyKey(), old.republishedFrom(), old.rollout(), platforms);
      groups.put(groupId, g.withGroup(renewed));
    }
    return all;
  }

  private boolean inconsistent(EventEnvelope e, String what) {
    LOG.warn("event left out: {} appId={} sequence={} type={}", what, appId, e.sequence(), e.type().wireName());
    return false;
  }

  /**
   * Builds the app's image: freezes the state and derives the resolve table, reusing the prepared
   * responses of {@code previous} for entries whose bytes did not change and preparing only entries a
   * device can currently be served (a head or a running rollout's control entry).
   */
  AppImage build(AppImage previous) {
    Map<String, Prepared> reuse = previous == null ? Map.of() : previous.prepared;
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
        signing,
        Collections.unmodifiableMap(new HashMap<>(channels)),
        Collections.unmodifiableMap(new HashMap<>(groups)),
        Collections.unmodifiableMap(new HashMap<>(groupOfEntry)),
        Collections.unmodifiableMap(frozenLines),
        Collections.unmodifiableMap(table),
        Collections.unmodifiableMap(prepared),
        noUpdate,
        bytes);
  }

  private Prepared noUpdate(AppImage previous) {
    if (previous != null && previous.signing == signing) {
      return previous.noUpdate; // same registration (or none): same bytes
    }
    if (signing == null || signing.noUpdateBody() == null) {
      return Prepared.noUpdate(AppImage.UNSIGNED_NO_UPDATE, null);
    }
    return Prepared.noUpdate(signing.noUpdateBody(), signing.noUpdateSignature());
  }

  /** The slot of {@code platform} for one line (group ids oldest first), or null when no group has it. */
  private Slot slot(List<String> line, String platform, Map<String, Prepared> reuse, Map<String, Prepared> out) {
    for (int i = line.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(line.get(i));
      PlatformUpdate u = g.group().platform(platform);
      if (u == null || u.body() == null) {
        continue;
      }
      Prepared head = prepare(g.group(), u, reuse, out);
      if (!g.rolloutActive() || g.rolloutPercentage() >= 100 || g.group().rollout() == null) {
        return new Slot(head, null, 100, null);
      }
      Prepared control = null;
      String controlId = g.group().rollout().controlGroupId();
      GroupState c = controlId == null ? null : groups.get(controlId);
      if (c != null && !c.reverted()) {
        PlatformUpdate cu = c.group().platform(platform);
        if (cu != null && cu.body() != null) {
          control = prepare(c.group(), cu, reuse, out);
        }
      }
      return new Slot(head, g.group().rollout().rolloutId(), g.rolloutPercentage(), control);
    }
    return null;
  }

  private static Prepared prepare(UpdateGroup g, PlatformUpdate u, Map<String, Prepared> reuse, Map<String, Prepared> out) {
    Prepared p = out.get(u.updateId());
    if (p != null && p.source() == u) {
      return p;
    }
    p = reuse.get(u.updateId());
    if (p == null || p.source() != u) {
      p = g.rollsBackToEmbedded() ? Prepared.directive(g.groupId(), u) : Prepared.manifest(g.groupId(), u);
    }
    out.put(u.updateId(), p);
    return p;
  }
}
