package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.history.HistoryReads;
import dev.updraft.controlplane.history.StoredGroup;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.RetentionState;
import dev.updraft.controlplane.state.RetentionState.Policy;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention policies applied to the groups the control plane no longer holds, which only the history
 * projection in PostgreSQL has: per line under a policy, its stored groups counted newest first with the
 * held ones; past the policy's {@code keep} or older than its {@code maxAge} and not pinned, they
 * are deleted with {@code updates.deleted} events of actor {@code retention} (the fold and the edges skip
 * ids they do not hold; the projection marks them deleted). It waits (a little) for the projection to reach
 * the app's last event first; when it does not, or PostgreSQL cannot be used, nothing is done here (logged)
 * and the next application catches up. Thread-safe.
 */
final class StoredRetention {
  private static final Logger LOG = LoggerFactory.getLogger(StoredRetention.class);
  private static final int PAGE = RetentionCommands.GROUPS_PER_EVENT;

  private final Vertx vertx;
  private final CommandProcessor processor;
  private final HistoryReads history;

  StoredRetention(Vertx vertx, CommandProcessor processor, HistoryReads history) {
    this.vertx = vertx;
    this.processor = processor;
    this.history = history;
  }

  /** {groups deleted, events} over the app's lines under a policy. */
  Future<int[]> apply(String appId) {
    AppState app = processor.state().app(appId);
    RetentionState retention = processor.state().retention(appId);
    if (app == null || retention.policies().isEmpty()) {
      return Future.succeededFuture(new int[] {0, 0});
    }
    int[] total = {0, 0};
    // the projection first reaches what the held groups are now: a group it has not stored yet would be missed
    return history.awaitCaughtUp(appId, app.createdAt(), app.lastSequence(), false).compose(caughtUp -> {
      if (!caughtUp) {
        LOG.info("retention of groups no longer held appId={}: the history projection is behind the app's sequence {}; left for"
            + " the next application", appId, app.lastSequence());
        return Future.succeededFuture();
      }
      Future<Void> chain = Future.succeededFuture();
      for (Map.Entry<String, List<String>> b : app.branches().entrySet()) {
        Policy p = retention.policyFor(b.getKey());
        if (p == null) {
          continue;
        }
        for (String rt : b.getValue()) {
          chain = chain.compose(v -> line(app, p, b.getKey(), rt, total));
        }
      }
      return chain;
    }).map(v -> total).recover(t -> {
      LOG.warn("retention of groups no longer held appId={}: {}", appId, t.getMessage());
      return Future.succeededFuture(total);
    });
  }

  /**
   * One line: all its stored groups newest first, a page at a time, counted in the line's order; the held
   * ones among them count but are left to the held groups' own application (a pinned held group can be
   * older than stored ones, so "below the oldest held" would miss the stored groups in between).
   */
  private Future<Void> line(AppState app, Policy p, String branch, String runtime, int[] total) {
    return page(app, p, branch, runtime, null, 0, total);
  }

  private Future<Void> page(AppState app, Policy p, String branch, String runtime, Long below, int position, int[] total) {
    return history.groups(app.appId(), app.createdAt(), branch, runtime, below, PAGE).compose(rows -> {
      if (rows.isEmpty()) {
        return Future.succeededFuture();
      }
      Instant oldest = p.maxAge() == null ? null : processor.clock().instant().minus(p.maxAge());
      RetentionState retention = processor.state().retention(app.appId());
      List<String> victims = new ArrayList<>();
      int i = position;
      for (StoredGroup s : rows) {
        boolean expired = i >= p.keep() || oldest != null && s.group().publishedAt().isBefore(oldest);
        if (i > 0 && expired && !s.pinned() && !retention.isPinned(s.groupId()) && app.group(s.groupId()) == null) {
          victims.add(s.groupId());
        }
        i++;
      }
      long next = rows.get(rows.size() - 1).group().sequence();
      int reached = i;
      Future<Void> deleted = victims.isEmpty() ? Future.succeededFuture() : delete(app.appId(), p, victims, total);
      return rows.size() < PAGE ? deleted : deleted.compose(v -> page(app, p, branch, runtime, next, reached, total));
    });
  }

  private Future<Void> delete(String appId, Policy p, List<String> ids, int[] total) {
    String reason =
        "retention: " + (p.branch() == null ? "app policy" : "policy of branch " + p.branch()) + ", keep " + p.keep()
            + (p.maxAge() == null ? "" : ", max age " + p.maxAge().toDays() + "d") + " (groups no longer held)";
    return processor.submit(vertx, "apply-retention-stored", (s, now) -> {
      AppState app = s.app(appId);
      List<String> notHeld = new ArrayList<>();
      for (String id : ids) {
        if (app != null && app.group(id) == null && !s.retention(appId).isPinned(id)) {
          notHeld.add(id);
        }
      }
      if (notHeld.isEmpty()) {
        return Plan.nothing(0);
      }
      return Plan.of(List.of(new NewEvent(appId, Commands.ACTOR_RETENTION, new UpdatesDeleted(notHeld, reason))), st -> notHeld.size());
    }).map(n -> {
      total[0] += n;
      total[1] += n > 0 ? 1 : 0;
      return null;
    });
  }
}
