package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.RetentionState;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import io.vertx.core.Future;
import dev.updraft.controlplane.history.HistoryReads;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Retention policies and their application: setting or removing a policy, and applying the policies of an
 * app as {@link UpdatesDeleted} events with actor {@link Commands#ACTOR_RETENTION} ({@link RetentionPlan}
 * says which groups). Applying writes at most {@link #GROUPS_PER_EVENT} groups per event and
 * {@link #EVENTS_PER_COMMAND} events per transaction, then goes on in the next command until nothing is
 * left, so other commands interleave. Thread-safe.
 */
public final class RetentionCommands {
  static final int GROUPS_PER_EVENT = 500;
  static final int EVENTS_PER_COMMAND = 20;
  /** The most groups a policy keeps per line. */
  public static final int MAX_KEEP = 100_000;

  private final Vertx vertx;
  private final CommandProcessor processor;
  /** Null: the policies act on the held groups only. */
  private final StoredRetention stored;

  RetentionCommands(Vertx vertx, CommandProcessor processor, HistoryReads history) {
    this.vertx = vertx;
    this.processor = processor;
    this.stored = history == null ? null : new StoredRetention(vertx, processor, history);
  }

  /** What an application of the policies did. */
  public record Applied(String appId, int groupsDeleted, int events) {}

  /**
   * Sets the policy of the app ({@code branch} null) or of a branch, then applies the app's policies.
   * {@code keep} 1..{@link #MAX_KEEP}; {@code maxAge} nullable, at least one day.
   */
  public Future<RetentionState> set(String actor, String appId, String branch, int keep, Duration maxAge) {
    return processor.submit(
        vertx,
        "set-retention",
        (s, now) -> {
          Prologue.app(s, appId);
          if (branch != null) {
            Validate.branch("branch", branch);
          }
          if (keep < 1 || keep > MAX_KEEP) {
            throw CommandException.badRequest("invalid-keep", "keep must be between 1 and " + MAX_KEEP + ": got " + keep);
          }
          if (maxAge != null && maxAge.compareTo(Duration.ofDays(1)) < 0) {
            throw CommandException.badRequest("invalid-max-age", "maxAge must be at least one day (90d, say): got " + maxAge);
          }
          RetentionState.Policy old = s.retention(appId).policies().get(branch == null ? RetentionState.APP_WIDE : branch);
          if (old != null && old.keep() == keep && Objects.equals(old.maxAge(), maxAge)) {
            return Plan.nothing(s.retention(appId));
          }
          RetentionSet e = new RetentionSet(branch, keep, maxAge == null ? null : maxAge.toSeconds());
          return Plan.of(List.of(new NewEvent(appId, actor, e)), st -> st.retention(appId));
        })
        .compose(r -> apply(appId).map(a -> processor.state().retention(appId)));
  }

  /** Removes the policy of the app ({@code branch} null) or of a branch; 404 when there is none. */
  public Future<RetentionState> remove(String actor, String appId, String branch) {
    return processor.submit(
        vertx,
        "remove-retention",
        (s, now) -> {
          Prologue.app(s, appId);
          if (!s.retention(appId).policies().containsKey(branch == null ? RetentionState.APP_WIDE : branch)) {
            throw CommandException.notFound(
                "retention-not-found", "app " + appId + " has no " + (branch == null ? "app-wide" : "branch " + branch) + " retention policy");
          }
          return Plan.of(List.of(new NewEvent(appId, actor, new RetentionSet(branch, null, null))), st -> st.retention(appId));
        });
  }

  /**
   * Applies the app's policies now (nothing when it has none or they delete nothing): to the groups the
   * control plane holds, then to the older ones only the history projection has ({@link StoredRetention}).
   */
  public Future<Applied> apply(String appId) {
    Future<Applied> held = step(appId, new Applied(appId, 0, 0));
    return stored == null ? held : held.compose(a -> stored.apply(appId).map(n -> new Applied(appId, a.groupsDeleted() + n[0], a.events() + n[1])));
  }

  /** Applies the policies of every app that has one, one app after the other. */
  public Future<List<Applied>> applyAll() {
    List<String> apps = new ArrayList<>();
    for (Map.Entry<String, RetentionState> e : processor.state().retention().entrySet()) {
      if (!e.getValue().policies().isEmpty()) {
        apps.add(e.getKey());
      }
    }
    List<Applied> out = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (String app : apps) {
      chain = chain.compose(v -> apply(app).map(a -> {
        out.add(a);
        return null;
      }));
    }
    return chain.map(v -> out);
  }

  private Future<Applied> step(String appId, Applied sofar) {
    return processor
        .submit(vertx, "apply-retention", (s, now) -> plan(s, appId, now))
        .compose(n -> n[0] == 0 ? Future.succeededFuture(sofar)
            : step(appId, new Applied(appId, sofar.groupsDeleted() + n[0], sofar.events() + n[1])));
  }

  /** The next transaction of deletions: {groups, events} in its result. */
  private static Plan<int[]> plan(ControlState s, String appId, java.time.Instant now) {
    AppState app = s.app(appId);
    if (app == null) {
      return Plan.nothing(new int[] {0, 0});
    }
    List<NewEvent> events = new ArrayList<>();
    int groups = 0;
    for (Map.Entry<String, List<String>> v : RetentionPlan.victims(app, s.retention(appId), now).entrySet()) {
      List<String> ids = v.getValue();
      for (int from = 0; from < ids.size() && events.size() < EVENTS_PER_COMMAND; from += GROUPS_PER_EVENT) {
        List<String> chunk = ids.subList(from, Math.min(ids.size(), from + GROUPS_PER_EVENT));
        events.add(new NewEvent(appId, Commands.ACTOR_RETENTION, new UpdatesDeleted(chunk, v.getKey())));
        groups += chunk.size();
      }
    }
    int[] result = {groups, events.size()};
    return events.isEmpty() ? Plan.nothing(result) : Plan.of(events, st -> result);
  }
}
