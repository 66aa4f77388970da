package dev.updraft.controlplane.state;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventPayload.AppCreated;
import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.ManifestsRenewed;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.Renewal;
import dev.updraft.events.EventPayload.RolledBackToEmbedded;
import dev.updraft.events.EventPayload.RolloutChanged;
import dev.updraft.events.EventPayload.RolloutFinished;
import dev.updraft.events.EventPayload.RolloutReverted;
import dev.updraft.events.EventPayload.SigningKeyRegistered;
import dev.updraft.events.EventPayload.TokenIssued;
import dev.updraft.events.EventPayload.TokenRevoked;
import dev.updraft.events.EventPayload.UpdateGroup;
import dev.updraft.events.EventPayload.UpdatePublished;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds events into {@link ControlState}. A pure function of its inputs: no clock, no randomness, no
 * I/O, so the state after a replay equals the state the writer had.
 *
 * <p>Policy for odd logs: an event for an app never created, or with a sequence at or below the app's
 * last one (a duplicate), is skipped and logged; a gap in the sequence is logged and the event applied.
 * An event of a type this build does not know still advances the app's sequence (so this instance
 * never writes a sequence a newer writer already used) and shows in the audit log.
 */
public final class StateFold {
  private static final Logger LOG = LoggerFactory.getLogger(StateFold.class);

  private StateFold() {}

  /** The state after {@code e}. */
  public static ControlState apply(ControlState s, EventEnvelope e) {
    AppState app = s.app(e.appId());
    EventPayload p = e.payload();
    if (p instanceof AppCreated) {
      if (app != null) {
        LOG.warn("skipping app.created for existing appId={} sequence={}", e.appId(), e.sequence());
        return s;
      }
      AppCreated c = (AppCreated) p;
      AppState created =
          new AppState(
              e.appId(),
              c.displayName(),
              e.occurredAt(),
              e.actor(),
              e.sequence(),
              Map.of(),
              null,
              Map.of(),
              List.of(),
              Map.of(),
              List.of(audit(e, "created app " + e.appId() + (c.displayName() == null ? "" : " (" + c.displayName() + ")"))));
      return withApp(s, created, s.tokensBySha256());
    }
    if (app == null) {
      LOG.warn("skipping event for unknown appId={} type={} sequence={}", e.appId(), e.type().wireName(), e.sequence());
      return s;
    }
    if (e.sequence() <= app.lastSequence()) {
      LOG.warn(
          "skipping duplicate event appId={} sequence={} lastSequence={}", e.appId(), e.sequence(), app.lastSequence());
      return s;
    }
    if (e.sequence() != app.lastSequence() + 1) {
      LOG.error(
          "sequence gap appId={} expected={} got={}: an event is missing from the log",
          e.appId(),
          app.lastSequence() + 1,
          e.sequence());
    }
    Map<String, TokenRef> index = s.tokensBySha256();
    Folding f = new Folding(app, e);
    if (p instanceof TokenIssued) {
      TokenIssued t = (TokenIssued) p;
      f.tokens.put(
          t.tokenId(), new TokenState(t.tokenId(), t.role(), t.label(), t.secretSha256(), e.occurredAt(), e.actor(), null));
      Map<String, TokenRef> ix = new HashMap<>(index);
      ix.put(t.secretSha256(), new TokenRef(app.appId(), t.tokenId(), t.role()));
      index = ix;
      f.summary = "issued token " + t.tokenId() + " (role " + t.role() + (t.label() == null ? "" : ", label " + t.label()) + ")";
    } else if (p instanceof TokenRevoked) {
      TokenRevoked t = (TokenRevoked) p;
      TokenState old = f.tokens.get(t.tokenId());
      if (old != null && !old.revoked()) {
        f.tokens.put(
            t.tokenId(),
            new TokenState(old.tokenId(), old.role(), old.label(), old.secretSha256(), old.issuedAt(), old.issuedBy(), e.occurredAt()));
        Map<String, TokenRef> ix = new HashMap<>(index);
        ix.remove(old.secretSha256());
        index = ix;
      }
      f.summary = "revoked token " + t.tokenId();
    } else if (p instanceof SigningKeyRegistered) {
      SigningKeyRegistered k = (SigningKeyRegistered) p;
      f.signing =
          new SigningState(
              k.keyId(),
              k.certificatePem(),
              k.certificateSha256(),
              k.noUpdateDirectiveBody(),
              k.noUpdateDirectiveSignature(),
              e.occurredAt());
      f.renew(k.resigned());
      f.summary =
          "registered signing key keyid=" + k.keyId() + " certificate sha256=" + k.certificateSha256() + ", re-signed "
              + k.resigned().size() + " entries";
    } else if (p instanceof ChannelMapped) {
      ChannelMapped c = (ChannelMapped) p;
      f.channels.put(c.channel(), c);
      f.summary =
          "mapped channel " + c.channel() + " to branch " + c.branch()
              + (c.rollout() == null
                  ? ""
                  : " with " + c.rollout().percentage() + "% to branch " + c.rollout().branch()
                      + (c.rollout().runtimeVersion() == null ? "" : " for runtime " + c.rollout().runtimeVersion()));
    } else if (p instanceof UpdatePublished) {
      UpdateGroup g = ((UpdatePublished) p).group();
      f.addGroup(g);
      f.summary =
          (g.republishedFrom() == null ? "published" : "republished group " + g.republishedFrom() + " as")
              + " group " + g.groupId() + " on branch " + g.branch() + ", runtime " + g.runtimeVersion() + " ("
              + platforms(g) + ")" + (g.rollout() == null ? "" : " as a rollout at " + g.rollout().percentage() + "%");
    } else if (p instanceof RolledBackToEmbedded) {
      UpdateGroup g = ((RolledBackToEmbedded) p).group();
      f.addGroup(g);
      f.summary =
          "rolled back branch " + g.branch() + ", runtime " + g.runtimeVersion() + " to the embedded update ("
              + platforms(g) + "), group " + g.groupId();
    } else if (p instanceof RolloutChanged) {
      RolloutChanged r = (RolloutChanged) p;
      RolloutState before = f.rolloutOf(r.groupId());
      f.updateRollout(
          r.groupId(),
          old -> new RolloutState(old.rolloutId(), r.percentage(), old.controlGroupId(), r.guard(), old.status(), old.startedAt(), e.occurredAt()),
          null);
      f.summary = rolloutChangeSummary(r, before);
    } else if (p instanceof RolloutFinished) {
      RolloutFinished r = (RolloutFinished) p;
      f.updateRollout(
          r.groupId(),
          old -> new RolloutState(old.rolloutId(), old.percentage(), old.controlGroupId(), old.guard(), RolloutState.FINISHED, old.startedAt(), e.occurredAt()),
          null);
      f.summary = "rollout of group " + r.groupId() + " finished";
    } else if (p instanceof RolloutReverted) {
      RolloutReverted r = (RolloutReverted) p;
      f.updateRollout(
          r.groupId(),
          old -> new RolloutState(old.rolloutId(), old.percentage(), old.controlGroupId(), old.guard(), RolloutState.REVERTED, old.startedAt(), e.occurredAt()),
          r.replacement() == null ? null : r.replacement().groupId());
      if (r.replacement() != null) {
        f.addGroup(r.replacement());
      }
      f.summary =
          "rollout of group " + r.groupId() + " reverted" + (r.reason() == null ? "" : ": " + r.reason())
              + (r.replacement() == null ? "" : "; replaced by group " + r.replacement().groupId()
                  + (r.replacement().rollsBackToEmbedded() ? " (roll back to embedded)" : ""));
    } else if (p instanceof ManifestsRenewed) {
      ManifestsRenewed m = (ManifestsRenewed) p;
      f.renew(m.renewals());
      f.summary = "renewed " + m.renewals().size() + " manifests" + (m.reason() == null ? "" : ": " + m.reason());
    } else {
      throw new IllegalStateException("no fold for event type=" + e.type().wireName());
    }
    return withApp(s, f.build(), index);
  }

  /** The state after an event of a type (or schema version) this build does not know. */
  public static ControlState applyUnknown(ControlState s, Decoded.Unknown u) {
    AppState app = s.app(u.appId());
    if (app == null || u.sequence() <= app.lastSequence()) {
      return s;
    }
    List<AuditEntry> audit = new ArrayList<>(app.audit());
    audit.add(
        new AuditEntry(
            u.sequence(), null, u.type(), null, null, "event of a type this version does not know (schema version " + u.schemaVersion() + ")"));
    AppState next =
        new AppState(
            app.appId(),
            app.displayName(),
            app.createdAt(),
            app.createdBy(),
            u.sequence(),
            app.tokens(),
            app.signing(),
            app.channels(),
            app.groups(),
            app.idempotencyKeys(),
            audit);
    return withApp(s, next, s.tokensBySha256());
  }

  private static ControlState withApp(ControlState s, AppState app, Map<String, TokenRef> index) {
    Map<String, AppState> apps = new TreeMap<>(s.apps());
    apps.put(app.appId(), app);
    return new ControlState(apps, index);
  }

  private static AuditEntry audit(EventEnvelope e, String summary) {
    return new AuditEntry(e.sequence(), e.eventId().toString(), e.type().wireName(), e.occurredAt(), e.actor(), summary);
  }

  private static String platforms(UpdateGroup g) {
    StringJoiner j = new StringJoiner(", ");
    for (PlatformUpdate p : g.platforms()) {
      j.add(p.platform());
    }
    return j.toString();
  }

  /** Mutable scratch copy of one app while one event is folded. */
  private static final class Folding {
    final AppState app;
    final EventEnvelope e;
    final Map<String, TokenState> tokens;
    final Map<String, ChannelMapped> channels;
    final List<GroupState> groups;
    final Map<String, String> idempotencyKeys;
    SigningState signing;
    String summary;

    Folding(AppState app, EventEnvelope e) {
      this.app = app;
      this.e = e;
      this.tokens = new TreeMap<>(app.tokens());
      this.channels = new TreeMap<>(app.channels());
      this.groups = new ArrayList<>(app.groups());
      this.idempotencyKeys = new TreeMap<>(app.idempotencyKeys());
      this.signing = app.signing();
    }

    void addGroup(UpdateGroup g) {
      Map<String, Instant> rendered = new TreeMap<>();
      for (PlatformUpdate p : g.platforms()) {
        rendered.put(p.updateId(), e.occurredAt());
      }
      RolloutState rollout =
          g.rollout() == null
              ? null
              : new RolloutState(
                  g.rollout().rolloutId(),
                  g.rollout().percentage(),
                  g.rollout().controlGroupId(),
                  g.rollout().guard(),
                  RolloutState.ACTIVE,
                  e.occurredAt(),
                  e.occurredAt());
      groups.add(new GroupState(g, e.sequence(), e.occurredAt(), e.actor(), rendered, rollout, null));
      if (g.idempotencyKey() != null) {
        idempotencyKeys.putIfAbsent(g.idempotencyKey(), g.groupId());
      }
    }

    /** The rollout of {@code groupId} before this event, or null. */
    RolloutState rolloutOf(String groupId) {
      for (int i = groups.size() - 1; i >= 0; i--) {
        if (groups.get(i).groupId().equals(groupId)) {
          return groups.get(i).rollout();
        }
      }
      return null;
    }

    void updateRollout(String groupId, java.util.function.UnaryOperator<RolloutState> change, String revertedBy) {
      for (int i = groups.size() - 1; i >= 0; i--) {
        GroupState g = groups.get(i);
        if (g.groupId().equals(groupId)) {
          if (g.rollout() == null) {
            LOG.warn("rollout event for group without rollout appId={} groupId={} sequence={}", app.appId(), groupId, e.sequence());
            return;
          }
          groups.set(
              i,
              new GroupState(
                  g.group(),
                  g.sequence(),
                  g.publishedAt(),
                  g.actor(),
                  g.renderedAt(),
                  change.apply(g.rollout()),
                  revertedBy == null ? g.revertedBy() : revertedBy));
          return;
        }
      }
      LOG.warn("rollout event for unknown group appId={} groupId={} sequence={}", app.appId(), groupId, e.sequence());
    }

    void renew(List<Renewal> renewals) {
      if (renewals.isEmpty()) {
        return;
      }
      Map<String, Renewal> byId = new HashMap<>();
      for (Renewal r : renewals) {
        byId.put(r.updateId(), r);
      }
      for (int i = 0; i < groups.size(); i++) {
        GroupState g = groups.get(i);
        boolean touched = false;
        List<PlatformUpdate> ps = new ArrayList<>();
        Map<String, Instant> rendered = new TreeMap<>(g.renderedAt());
        for (PlatformUpdate p : g.group().platforms()) {
          Renewal r = byId.get(p.updateId());
          if (r == null) {
            ps.add(p);
            continue;
          }
          touched = true;
          if (!r.body().equals(p.body())) {
            rendered.put(p.updateId(), e.occurredAt());
          }
          ps.add(new PlatformUpdate(p.platform(), p.updateId(), p.createdAt(), r.body(), r.signature(), p.launchAssetKey(), p.assetKeys()));
        }
        if (touched) {
          UpdateGroup og = g.group();
          UpdateGroup ng =
              new UpdateGroup(
                  og.groupId(),
                  og.kind(),
                  og.branch(),
                  og.runtimeVersion(),
                  og.message(),
                  og.gitCommitHash(),
                  og.idempotencyKey(),
                  og.republishedFrom(),
                  og.rollout(),
                  ps);
          groups.set(i, new GroupState(ng, g.sequence(), g.publishedAt(), g.actor(), rendered, g.rollout(), g.revertedBy()));
        }
      }
    }

    AppState build() {
      List<AuditEntry> audit = new ArrayList<>(app.audit());
      audit.add(audit(e, summary));
      return new AppState(
          app.appId(),
          app.displayName(),
          app.createdAt(),
          app.createdBy(),
          e.sequence(),
          tokens,
          signing,
          channels,
          groups,
          idempotencyKeys,
          audit);
    }
  }

  /** "rollout of group g set to 40% (from 10%)", or what changed of its guard when the share did not. */
  static String rolloutChangeSummary(RolloutChanged r, RolloutState before) {
    StringBuilder b = new StringBuilder("rollout of group ").append(r.groupId());
    boolean shareChanged = before == null || before.percentage() != r.percentage();
    if (shareChanged) {
      b.append(" set to ").append(r.percentage()).append('%');
      if (before != null) {
        b.append(" (from ").append(before.percentage()).append("%)");
      }
    }
    boolean guardChanged = before == null ? r.guard() != null : !java.util.Objects.equals(before.guard(), r.guard());
    if (guardChanged) {
      b.append(shareChanged ? "; " : ": ");
      if (r.guard() == null) {
        b.append("guard removed");
      } else {
        EventPayload.RolloutGuard g = r.guard();
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
}
