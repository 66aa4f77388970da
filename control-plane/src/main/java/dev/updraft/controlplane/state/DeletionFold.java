package dev.updraft.controlplane.state;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The folds of deletions, pins and retention policies (called by {@link StateFold}'s switch). A deleted
 * group leaves the app's history ({@link GroupHistory#minus}), its idempotency key and its pin; a deleted
 * app leaves the state with its tokens, deliveries and retention settings.
 */
final class DeletionFold {
  private static final Logger LOG = LoggerFactory.getLogger(DeletionFold.class);

  private DeletionFold() {}

  static ControlState updatesDeleted(ControlState s, AppState app, EventEnvelope e, UpdatesDeleted d) {
    RetentionState retention = s.retention(app.appId());
    AppState next = app;
    for (String groupId : d.groupIds()) {
      long pos = next.history().position(groupId);
      if (pos < 0) {
        // expected: a group the control plane no longer holds (deleted from the history projection, retention of old groups)
        LOG.debug("updates.deleted names a group not held appId={} groupId={} sequence={}", app.appId(), groupId, e.sequence());
        // its idempotency key (kept for 24 h, longer than the group is held) and its pin go all the same
        next = next.withHistory(next.history(), next.idempotencyKeys().withoutGroup(groupId));
        retention = retention.withPin(groupId, false);
        continue;
      }
      next = deleteAt(next, pos);
      retention = retention.withPin(groupId, false);
    }
    return s.with(StateFold.done(next, e)).withRetention(app.appId(), retention);
  }

  static ControlState updatePinned(ControlState s, AppState app, EventEnvelope e, UpdatePinned p) {
    return s.with(StateFold.done(app, e))
        .withRetention(app.appId(), s.retention(app.appId()).withPin(p.groupId(), p.pinned()));
  }

  static ControlState branchDeleted(ControlState s, AppState app, EventEnvelope e, BranchDeleted b) {
    RetentionState retention = s.retention(app.appId()).withPolicy(b.branch(), null);
    AppState next = app;
    List<Long> positions = app.history().positionsOnBranch(b.branch());
    for (long pos : positions) {
      retention = retention.withPin(app.history().at(pos).groupId(), false);
      next = deleteAt(next, pos);
    }
    return s.with(StateFold.done(next, e))
        .withRetention(app.appId(), retention);
  }

  static AppState channelDeleted(AppState app, EventEnvelope e, ChannelDeleted c) {
    return StateFold.done(app.withChannels(app.channels().minus(c.channel())), e);
  }

  static ControlState appDeleted(ControlState s, AppState app, EventEnvelope e, AppDeleted d) {
    LOG.info("app deleted appId={} sequence={} actor={}", app.appId(), e.sequence(), e.actor());
    return s.without(app);
  }

  static ControlState retentionSet(ControlState s, AppState app, EventEnvelope e, RetentionSet r) {
    if (r.removes()) {
      return s.with(StateFold.done(app, e))
          .withRetention(app.appId(), s.retention(app.appId()).withPolicy(r.branch(), null));
    }
    int keep = r.keep() == null ? Integer.MAX_VALUE : r.keep();
    Duration maxAge = r.maxAgeSeconds() == null ? null : Duration.ofSeconds(r.maxAgeSeconds());
    RetentionState.Policy p = new RetentionState.Policy(r.branch(), keep, maxAge, e.occurredAt(), e.actor());
    return s.with(StateFold.done(app, e))
        .withRetention(app.appId(), s.retention(app.appId()).withPolicy(r.branch(), p));
  }

  /** "keep 10 per branch and runtime version, at most 90 days old". */
  static String describe(RetentionState.Policy p) {
    String keep = p.keep() == Integer.MAX_VALUE ? "keep every group" : "keep " + p.keep();
    return keep + " per branch and runtime version"
        + (p.maxAge() == null ? "" : ", at most " + p.maxAge().toDays() + " days old");
  }

  /** The app without the group at {@code pos}; its idempotency key goes with it (a retry then publishes again). */
  private static AppState deleteAt(AppState app, long pos) {
    GroupState g = app.history().at(pos);
    IdempotencyWindow keys = app.idempotencyKeys();
    String key = g.group().idempotencyKey();
    if (key != null && g.groupId().equals(keys.get(key))) {
      keys = keys.minus(key);
    }
    return app.withHistory(app.history().minus(pos), keys);
  }
}
