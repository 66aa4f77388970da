package dev.updraft.ingester.history;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventHandler;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The one-line summary the audit log shows for each event (the texts the control plane's fold wrote
 * before the audit moved to PostgreSQL). One method per {@link dev.updraft.events.EventType}: this is
 * the log's {@link EventHandler}, so a new event type has no summary until it is written here. Pure.
 */
final class AuditSummaries implements EventHandler<String> {
  /** What the summary needs from before the event. */
  private final Prior prior;

  private AuditSummaries(Prior prior) {
    this.prior = prior;
  }

  /**
   * What a summary needs from before the event: the group's rollout (for {@code rollout.changed}) and how
   * many groups a deletion removed.
   *
   * @param rollout nullable: the group is unknown or has no rollout
   * @param groupsDeleted groups an {@code updates.deleted} or {@code branch.deleted} removed
   * @param keyReplaced whether a {@code signing-key.registered} replaced a key of its keyid in the ring
   */
  record Prior(RolloutBefore rollout, int groupsDeleted, boolean keyReplaced) {
    static final Prior NONE = new Prior(null, 0, false);
  }

  /** A rollout's share and guard before a change. */
  record RolloutBefore(int percentage, RolloutGuard guard) {}

  static String of(EventEnvelope e, Prior prior) {
    return new AuditSummaries(prior).dispatch(e);
  }

  @Override
  public String appCreated(EventEnvelope e, AppCreated c) {
    return "created app " + e.appId() + (c.displayName() == null ? "" : " (" + c.displayName() + ")");
  }

  @Override
  public String tokenIssued(EventEnvelope e, TokenIssued t) {
    return "issued token " + t.tokenId() + " (role " + t.role() + (t.label() == null ? "" : ", label " + t.label()) + ")";
  }

  @Override
  public String tokenRevoked(EventEnvelope e, TokenRevoked p) {
    return "revoked token " + p.tokenId();
  }

  @Override
  public String signingKeyRegistered(EventEnvelope e, SigningKeyRegistered p) {
    return keyRegistered(p, prior);
  }

  @Override
  public String signingKeyRetired(EventEnvelope e, SigningKeyRetired p) {
    return keyRetired(p);
  }

  @Override
  public String appUpdated(EventEnvelope e, AppUpdated u) {
    return u.defaultChannel() == null ? "removed the default channel" : "set the default channel to " + u.defaultChannel();
  }

  @Override
  public String channelMapped(EventEnvelope e, ChannelMapped p) {
    return channelMapped(p);
  }

  @Override
  public String updatePublished(EventEnvelope e, UpdatePublished p) {
    return published(p.group());
  }

  @Override
  public String rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded p) {
    UpdateGroup g = p.group();
    return "rolled back branch " + g.branch() + ", runtime " + g.runtimeVersion() + " to the embedded update ("
        + platforms(g) + "), group " + g.groupId();
  }

  @Override
  public String rolloutChanged(EventEnvelope e, RolloutChanged p) {
    return rolloutChangeSummary(p, prior.rollout());
  }

  @Override
  public String rolloutFinished(EventEnvelope e, RolloutFinished p) {
    return "rollout of group " + p.groupId() + " finished";
  }

  @Override
  public String rolloutReverted(EventEnvelope e, RolloutReverted p) {
    return reverted(p);
  }

  @Override
  public String manifestsRenewed(EventEnvelope e, ManifestsRenewed m) {
    return "renewed " + m.renewals().size() + " manifests" + (m.reason() == null ? "" : ": " + m.reason());
  }

  @Override
  public String launchAssetStored(EventEnvelope e, LaunchAssetStored p) {
    return launchAssetStored(p);
  }

  @Override
  public String patchesComputed(EventEnvelope e, PatchesComputed p) {
    return patchesComputed(p);
  }

  @Override
  public String buildRegistered(EventEnvelope e, BuildRegistered b) {
    return "registered " + b.platform() + " build of runtime " + b.runtimeVersion() + " embedding update "
        + b.embeddedUpdateId() + " (bundle " + b.bundleSha256() + ", expo-updates "
        + (b.expoUpdatesVersion() == null ? "unknown" : b.expoUpdatesVersion()) + ")";
  }

  @Override
  public String updatesDeleted(EventEnvelope e, UpdatesDeleted p) {
    return updatesDeleted(p, prior.groupsDeleted());
  }

  @Override
  public String updatePinned(EventEnvelope e, UpdatePinned u) {
    return (u.pinned() ? "pinned group " : "unpinned group ") + u.groupId();
  }

  @Override
  public String branchDeleted(EventEnvelope e, BranchDeleted p) {
    return "deleted branch " + p.branch() + " and its " + prior.groupsDeleted() + " update groups";
  }

  @Override
  public String channelDeleted(EventEnvelope e, ChannelDeleted p) {
    return "deleted channel " + p.channel();
  }

  @Override
  public String appDeleted(EventEnvelope e, AppDeleted p) {
    return "deleted app " + e.appId();
  }

  @Override
  public String retentionSet(EventEnvelope e, RetentionSet p) {
    return retentionSet(p);
  }

  /** The summary of an event of a type (or schema version) this build does not know. */
  static String unknown(int schemaVersion) {
    return "event of a type this version does not know (schema version " + schemaVersion + ")";
  }

  private static String keyRegistered(SigningKeyRegistered k, Prior prior) {
    String chain = k.certificateChainPem();
    boolean replaced = prior.keyReplaced();
    return "registered signing key keyid=" + k.keyId() + (chain == null ? "" : " (certificate chain)") + " certificate sha256="
        + k.certificateSha256() + (k.joinsRing() ? (replaced ? ", replacing the key of that keyid" : ", added to the key ring")
            : ", replacing every other key") + ", re-signed " + k.resigned().size() + " entries";
  }

  private static String channelMapped(ChannelMapped c) {
    return "mapped channel " + c.channel() + " to branch " + c.branch()
        + (c.rollout() == null
            ? ""
            : " with " + c.rollout().percentage() + "% to branch " + c.rollout().branch()
                + (c.rollout().runtimeVersion() == null ? "" : " for runtime " + c.rollout().runtimeVersion()))
        + (c.pausedNow() ? ", paused: its devices get no update" : "");
  }

  private static String published(UpdateGroup g) {
    return (g.republishedFrom() == null ? "published" : "republished group " + g.republishedFrom() + " as")
        + " group " + g.groupId() + " on branch " + g.branch() + ", runtime " + g.runtimeVersion() + " ("
        + platforms(g) + ")" + (g.rollout() == null ? "" : " as a rollout at " + g.rollout().percentage() + "%");
  }

  private static String reverted(RolloutReverted r) {
    return "rollout of group " + r.groupId() + " reverted" + (r.reason() == null ? "" : ": " + r.reason())
        + (r.replacement() == null ? "" : "; replaced by group " + r.replacement().groupId()
            + (r.replacement().rollsBackToEmbedded() ? " (roll back to embedded)" : ""));
  }

  private static String launchAssetStored(LaunchAssetStored l) {
    StringJoiner encodings = new StringJoiner(", ");
    for (EventPayload.AssetVariant v : l.variants()) {
      encodings.add(v.encoding() + " " + v.size() + " bytes");
    }
    return "stored launch asset " + l.sha256() + " (" + encodings + ")";
  }

  private static String patchesComputed(PatchesComputed p) {
    StringJoiner sizes = new StringJoiner(", ");
    for (EventPayload.BundlePatch b : p.patches()) {
      sizes.add(b.platform() + " from " + b.baseSha256().substring(0, Math.min(12, b.baseSha256().length())) + " " + b.size() + " bytes");
    }
    return "bundle patches for group " + p.groupId() + ": " + (p.patches().isEmpty() ? "none worth keeping" : sizes.toString());
  }

  private static String updatesDeleted(UpdatesDeleted d, int n) {
    return "deleted " + n + (n == 1 ? " update group" : " update groups") + (d.groupIds().size() <= 5 ? " " + String.join(", ", d.groupIds()) : "")
        + (d.reason() == null ? "" : " (" + d.reason() + ")");
  }

  private static String retentionSet(RetentionSet r) {
    String where = r.branch() == null ? "app-wide" : "branch " + r.branch();
    if (r.removes()) {
      return "removed the " + where + " retention policy";
    }
    String keep = r.keep() == null ? "keep every group" : "keep " + r.keep();
    return "set the " + where + " retention policy: " + keep + " per branch and runtime version"
        + (r.maxAgeSeconds() == null ? "" : ", at most " + java.time.Duration.ofSeconds(r.maxAgeSeconds()).toDays() + " days old");
  }

  static String platforms(UpdateGroup g) {
    StringJoiner j = new StringJoiner(", ");
    for (PlatformUpdate p : g.platforms()) {
      j.add(p.platform());
    }
    return j.toString();
  }

  /** "rollout of group g set to 40% (from 10%)", or what changed of its guard when the share did not. */
  static String rolloutChangeSummary(RolloutChanged r, RolloutBefore before) {
    StringBuilder b = new StringBuilder("rollout of group ").append(r.groupId());
    boolean shareChanged = before == null || before.percentage() != r.percentage();
    if (shareChanged) {
      b.append(" set to ").append(r.percentage()).append('%');
      if (before != null) {
        b.append(" (from ").append(before.percentage()).append("%)");
      }
    }
    boolean guardChanged = before == null ? r.guard() != null : !Objects.equals(before.guard(), r.guard());
    if (guardChanged) {
      b.append(shareChanged ? "; " : ": ");
      if (r.guard() == null) {
        b.append("guard removed");
      } else {
        RolloutGuard g = r.guard();
        b.append("guard set: revert above ").append(fmt(g.maxFailureRatePercent())).append("% failures among at least ")
            .append(g.minDevices()).append(" devices within ").append(g.windowSeconds()).append(" s");
      }
    }
    if (!shareChanged && !guardChanged) {
      b.append(" unchanged at ").append(r.percentage()).append('%');
    }
    return b.toString();
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  /** A retirement; a forced one says so, with the asks it overrode (when the control plane could tell). */
  private static String keyRetired(SigningKeyRetired r) {
    String s = "retired signing key keyid=" + r.keyId();
    if (!Boolean.TRUE.equals(r.forced())) {
      return s;
    }
    if (r.lastAskedAt() == null) {
      return s + " (forced" + (r.askedDevices() == null ? ": whether devices still asked for it was unknown)" : ")");
    }
    return s + " (forced: " + r.askedDevices() + " device(s) had asked for it, last at " + r.lastAskedAt() + ")";
  }
}
