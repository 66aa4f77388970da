package dev.updraft.controlplane.state;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventType;
import dev.updraft.events.Retention;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds events into {@link ControlState}. A pure function of its inputs: no clock, no randomness, no
 * I/O, so the state after a replay equals the state the writer had.
 *
 * <p>One method per {@link EventType}, reached through {@link StateReplay}, this fold's {@link
 * dev.updraft.events.EventHandler}: a new event type does not compile until it has its fold (as Kafka's {@code
 * MetadataDelta.replay}). Each event costs what
 * it touches: the state is persistent ({@link GroupHistory}), nothing is copied whole.
 *
 * <p>Policy for odd logs: an event for an app never created, or with a sequence at or below the app's
 * last one (a duplicate), is skipped and logged; a gap in the sequence is logged and the event applied.
 * An event of a type this build does not know still advances the app's sequence (so this instance
 * never writes a sequence a newer writer already used) and shows in the audit log.
 */
public final class StateFold {
  private static final Logger LOG = LoggerFactory.getLogger(StateFold.class);
  /** Groups per line the control plane holds (the retention rule, shared with the edges). */
  static final int WINDOW = Retention.CONTROL_PLANE_WINDOW;

  private StateFold() {}

  /** The state after {@code e}. */
  public static ControlState apply(ControlState s, EventEnvelope e) {
    AppState app = s.app(e.appId());
    if (e.type() != EventType.APP_CREATED && !follows(app, e)) {
      return s;
    }
    ControlState next = new StateReplay(s, app).dispatch(e);
    return withoutDroppedPatches(next, e.appId());
  }

  /** The state without the bundle patches of groups the retention rule no longer holds. */
  private static ControlState withoutDroppedPatches(ControlState s, String appId) {
    Deliveries d = s.deliveries().get(appId);
    AppState app = s.app(appId);
    if (d == null || app == null) {
      return s;
    }
    Deliveries kept = d.retainingPatchesOf(id -> app.group(id) != null);
    return kept == d ? s : s.withDeliveries(appId, kept);
  }

  /** The state after an event of a type (or schema version) this build does not know. */
  public static ControlState applyUnknown(ControlState s, Decoded.Unknown u) {
    AppState app = s.app(u.appId());
    if (app == null || u.sequence() <= app.lastSequence()) {
      return s;
    }
    return s.with(app.advanced(u.sequence(), null));
  }

  /** Whether {@code e} is the app's next event (a gap is logged and still applied). */
  private static boolean follows(AppState app, EventEnvelope e) {
    if (app == null) {
      LOG.warn("skipping event for unknown appId={} type={} sequence={}", e.appId(), e.type().wireName(), e.sequence());
      return false;
    }
    if (e.sequence() <= app.lastSequence()) {
      LOG.warn(
          "skipping duplicate event appId={} sequence={} lastSequence={}", e.appId(), e.sequence(), app.lastSequence());
      return false;
    }
    if (e.sequence() != app.lastSequence() + 1) {
      LOG.error(
          "sequence gap appId={} expected={} got={}: an event is missing from the log",
          e.appId(),
          app.lastSequence() + 1,
          e.sequence());
    }
    return true;
  }

  /** {@code app} advanced to {@code e} (the audit log is projected from the events by the ingester, not held here). */
  static AppState done(AppState app, EventEnvelope e) {
    return app.advanced(e.sequence(), e.occurredAt());
  }

  // ---------------------------------------------------------------- one method per event type

  static ControlState appCreated(ControlState s, AppState app, EventEnvelope e, AppCreated c) {
    if (app != null) {
      LOG.warn("skipping app.created for existing appId={} sequence={}", e.appId(), e.sequence());
      return s;
    }
    AppState created = AppState.created(e.appId(), c.displayName(), e.occurredAt(), e.actor());
    return s.with(done(created, e));
  }

  static ControlState tokenIssued(ControlState s, AppState app, EventEnvelope e, TokenIssued t) {
    Instant expiresAt = TokenState.parseExpiry(t.expiresAt());
    TokenState token = new TokenState(t.tokenId(), t.role(), t.label(), t.secretSha256(), e.occurredAt(), e.actor(), null, expiresAt);
    AppState next = done(app.withTokens(app.tokens().plus(t.tokenId(), token)), e);
    return s.with(next, s.tokensBySha256().plus(t.secretSha256(), new TokenRef(app.appId(), t.tokenId(), t.role(), expiresAt)));
  }

  static ControlState tokenRevoked(ControlState s, AppState app, EventEnvelope e, TokenRevoked t) {
    TokenState old = app.tokens().get(t.tokenId());
    if (old == null || old.revoked()) {
      return s.with(done(app, e));
    }
    TokenState revoked =
        new TokenState(old.tokenId(), old.role(), old.label(), old.secretSha256(), old.issuedAt(), old.issuedBy(), e.occurredAt(), old.expiresAt());
    return s.with(done(app.withTokens(app.tokens().plus(t.tokenId(), revoked)), e), s.tokensBySha256().minus(old.secretSha256()));
  }

  /**
   * The key joins the ring, replacing one of the same keyid in place (or, written before the key ring, it
   * replaces the whole ring), and its re-signed bodies are applied.
   */
  static AppState signingKeyRegistered(AppState app, EventEnvelope e, SigningKeyRegistered k) {
    String chain = k.certificateChainPem();
    SigningState key =
        new SigningState(
            k.keyId(), k.certificatePem(), k.certificateSha256(), k.noUpdateDirectiveBody(), k.noUpdateDirectiveSignature(),
            e.occurredAt(), chain, SigningState.earliestNotAfter(chain != null ? chain : k.certificatePem()));
    List<SigningState> ring;
    if (!k.joinsRing()) {
      ring = List.of(key);
    } else {
      ring = new ArrayList<>(app.keys());
      int at = -1;
      for (int i = 0; i < ring.size(); i++) {
        if (ring.get(i).keyId().equals(k.keyId())) {
          at = i;
        }
      }
      if (at >= 0) {
        ring.set(at, key);
      } else {
        ring.add(key);
      }
    }
    return done(renew(app.withKeys(ring), e, k.resigned()), e);
  }

  /** The key leaves the ring; a keyid the app does not have changes nothing (but shows in the audit log). */
  static AppState signingKeyRetired(AppState app, EventEnvelope e, SigningKeyRetired r) {
    List<SigningState> ring = new ArrayList<>(app.keys());
    boolean removed = ring.removeIf(k -> k.keyId().equals(r.keyId()));
    if (!removed) {
      LOG.warn("signing-key.retired for a keyid the app does not have appId={} keyId={} sequence={}", app.appId(), r.keyId(),
          e.sequence());
    }
    return done(app.withKeys(ring), e);
  }

  static AppState appUpdated(AppState app, EventEnvelope e, AppUpdated u) {
    return done(app.withDefaultChannel(u.defaultChannel()), e);
  }

  static AppState channelMapped(AppState app, EventEnvelope e, ChannelMapped c) {
    return done(app.withChannels(app.channels().plus(c.channel(), c)), e);
  }

  static AppState updatePublished(AppState app, RetentionState pins, EventEnvelope e, UpdatePublished p) {
    return done(addGroup(app, pins, e, p.group()), e);
  }

  static AppState rolledBackToEmbedded(AppState app, RetentionState pins, EventEnvelope e, RolledBackToEmbedded r) {
    return done(addGroup(app, pins, e, r.group()), e);
  }

  static AppState rolloutChanged(AppState app, RetentionState pins, EventEnvelope e, RolloutChanged r) {
    AppState next =
        updateRollout(
            app, pins, e, r.groupId(),
            old -> new RolloutState(old.rolloutId(), r.percentage(), old.controlGroupId(), r.guard(), old.status(), old.startedAt(), e.occurredAt()),
            null);
    return done(next, e);
  }

  static AppState rolloutFinished(AppState app, RetentionState pins, EventEnvelope e, RolloutFinished r) {
    AppState next =
        updateRollout(
            app, pins, e, r.groupId(),
            old -> new RolloutState(old.rolloutId(), old.percentage(), old.controlGroupId(), old.guard(), RolloutState.FINISHED, old.startedAt(), e.occurredAt()),
            null);
    return done(next, e);
  }

  static AppState rolloutReverted(AppState app, RetentionState pins, EventEnvelope e, RolloutReverted r) {
    AppState next =
        updateRollout(
            app, pins, e, r.groupId(),
            old -> new RolloutState(old.rolloutId(), old.percentage(), old.controlGroupId(), old.guard(), RolloutState.REVERTED, old.startedAt(), e.occurredAt()),
            r.replacement() == null ? null : r.replacement().groupId());
    if (r.replacement() != null) {
      next = addGroup(next, pins, e, r.replacement());
    }
    return done(next, e);
  }

  static AppState manifestsRenewed(AppState app, EventEnvelope e, ManifestsRenewed m) {
    return done(renew(app, e, m.renewals()), e);
  }

  static ControlState launchAssetStored(ControlState s, AppState app, EventEnvelope e, LaunchAssetStored l) {
    return s.with(done(app, e))
        .withDeliveries(app.appId(), s.deliveries(app.appId()).stored(l, e.occurredAt()));
  }

  static ControlState patchesComputed(ControlState s, AppState app, EventEnvelope e, PatchesComputed p) {
    return s.with(done(app, e))
        .withDeliveries(app.appId(), s.deliveries(app.appId()).computed(p, e.occurredAt()));
  }

  static ControlState buildRegistered(ControlState s, AppState app, EventEnvelope e, BuildRegistered b) {
    return s.with(done(app, e))
        .withDeliveries(app.appId(), s.deliveries(app.appId()).registered(b));
  }

  // ---------------------------------------------------------------- what several types share

  private static AppState addGroup(AppState app, RetentionState pins, EventEnvelope e, UpdateGroup g) {
    Map<String, Instant> rendered = new TreeMap<>();
    for (PlatformUpdate p : g.platforms()) {
      rendered.put(p.updateId(), e.occurredAt());
    }
    RolloutState rollout =
        g.rollout() == null
            ? null
            : new RolloutState(
                g.rollout().rolloutId(), g.rollout().percentage(), g.rollout().controlGroupId(), g.rollout().guard(),
                RolloutState.ACTIVE, e.occurredAt(), e.occurredAt());
    GroupHistory history = app.history().plus(new GroupState(g, e.sequence(), e.occurredAt(), e.actor(), rendered, rollout, null));
    IdempotencyWindow keys = app.idempotencyKeys();
    if (g.idempotencyKey() != null) {
      keys = keys.plus(new IdempotencyWindow.Entry(g.idempotencyKey(), g.groupId(), e.sequence(), e.occurredAt()));
    }
    return app.withHistory(history.retain(g.branch(), g.runtimeVersion(), WINDOW, pins(history, pins)), keys);
  }

  /**
   * The app with the rollout of {@code groupId} changed (and {@code revertedBy} set when not null); a
   * group that is unknown or no rollout is logged and left alone.
   */
  private static AppState updateRollout(
      AppState app, RetentionState pins, EventEnvelope e, String groupId, UnaryOperator<RolloutState> change, String revertedBy) {
    long pos = app.history().position(groupId);
    if (pos < 0) {
      LOG.warn("rollout event for unknown group appId={} groupId={} sequence={}", app.appId(), groupId, e.sequence());
      return app;
    }
    GroupState g = app.history().at(pos);
    if (g.rollout() == null) {
      LOG.warn("rollout event for group without rollout appId={} groupId={} sequence={}", app.appId(), groupId, e.sequence());
      return app;
    }
    GroupState changed =
        new GroupState(
            g.group(), g.sequence(), g.publishedAt(), g.actor(), g.renderedAt(), change.apply(g.rollout()),
            revertedBy == null ? g.revertedBy() : revertedBy);
    GroupHistory replaced = app.history().replace(pos, changed);
    GroupHistory history = replaced.retain(g.group().branch(), g.group().runtimeVersion(), WINDOW, pins(replaced, pins));
    return app.withHistory(history, app.idempotencyKeys());
  }

  /**
   * Which groups are pinned (held whatever their age) in {@code h}: the groups pinned explicitly
   * ({@code update.pinned}, so that they stay listed, republishable, deletable and protected from retention),
   * and the source of every republish the control plane holds, so that a group republished again and again
   * stays republishable. Pins come from the folded state only, never from outside, so that the state stays
   * a function of the log (a snapshot carries the explicit ones). An unpinned group is dropped by the next
   * fold of its line that finds it past the window. Edges need no such pin (they never republish).
   */
  private static java.util.function.Predicate<String> pins(GroupHistory h, RetentionState explicit) {
    return id -> explicit.isPinned(id) || h.republishedByAHeldGroup(id);
  }

  /** The app with new bodies and signatures for the entries {@code renewals} name (found by update id). */
  private static AppState renew(AppState app, EventEnvelope e, List<Renewal> renewals) {
    if (renewals.isEmpty()) {
      return app;
    }
    Map<String, Renewal> byId = new HashMap<>();
    TreeSet<Long> touched = new TreeSet<>();
    for (Renewal r : renewals) {
      byId.put(r.updateId(), r);
      touched.addAll(app.history().positionsOf(r.updateId()));
    }
    GroupHistory history = app.history();
    for (long pos : touched) {
      GroupState g = history.at(pos);
      Map<String, Instant> rendered = new TreeMap<>(g.renderedAt());
      for (PlatformUpdate p : g.group().platforms()) {
        Renewal r = byId.get(p.updateId());
        if (r != null && !r.body().equals(p.body())) {
          rendered.put(p.updateId(), e.occurredAt());
        }
      }
      history =
          history.replace(
              pos, new GroupState(g.group().renewed(byId), g.sequence(), g.publishedAt(), g.actor(), rendered, g.rollout(), g.revertedBy()));
    }
    return app.withHistory(history, app.idempotencyKeys());
  }
}
