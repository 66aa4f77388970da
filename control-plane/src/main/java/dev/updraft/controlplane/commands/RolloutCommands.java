package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Requests.Reverted;
import dev.updraft.controlplane.commands.Requests.RolloutEdit;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

/** Steering a per-update rollout: change its share or guard, finish it, revert it. Thread-safe. */
public final class RolloutCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;
  private final Groups groups;

  RolloutCommands(Vertx vertx, CommandProcessor processor, Groups groups) {
    this.vertx = vertx;
    this.processor = processor;
    this.groups = groups;
  }

  /** Changes a rollout's percentage and/or guard. */
  public Future<GroupState> changeRollout(String actor, String appId, String groupId, RolloutEdit edit) {
    return processor.submit(
        vertx,
        "change-rollout",
        (s, now) -> {
          GroupState g = activeRolloutGroup(Prologue.app(s, appId), groupId);
          int pct = edit.percentage() == null ? g.rollout().percentage() : Validate.percentage("percentage", edit.percentage());
          RolloutGuard guard = edit.clearGuard() ? null : edit.guard() != null ? edit.guard() : g.rollout().guard();
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolloutChanged(groupId, g.rollout().rolloutId(), pct, guard))),
              st -> st.app(appId).group(groupId));
        });
  }

  /** Finishes a rollout: the update goes to every device. */
  public Future<GroupState> finishRollout(String actor, String appId, String groupId) {
    return processor.submit(
        vertx,
        "finish-rollout",
        (s, now) -> {
          GroupState g = activeRolloutGroup(Prologue.app(s, appId), groupId);
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolloutFinished(groupId, g.rollout().rolloutId()))),
              st -> st.app(appId).group(groupId));
        });
  }

  /**
   * Reverts a rollout: republishes its control group, or rolls back to embedded when it had none.
   *
   * @param actor {@link Commands#ACTOR_GUARD} for automatic reverts
   */
  public Future<Reverted> revertRollout(String actor, String appId, String groupId, String reason) {
    return processor.submit(
        vertx,
        "revert-rollout",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          GroupState g = activeRolloutGroup(app, groupId);
          String why = Validate.text("reason", reason, 1000);
          UpdateGroup rolled = g.group();
          List<String> platforms = new ArrayList<>();
          for (PlatformUpdate p : rolled.platforms()) {
            platforms.add(p.platform());
          }
          GroupState control = g.rollout().controlGroupId() == null ? null : app.group(g.rollout().controlGroupId());
          UpdateGroup replacement;
          if (control == null) {
            replacement =
                groups.rollBack(app, rolled.branch(), rolled.runtimeVersion(), platforms, "Revert of rollout " + groupId, null, null, now);
          } else {
            replacement =
                groups.copyOf(
                    app, control.group(), Groups.choose(control, platforms), rolled.branch(), rolled.runtimeVersion(),
                    "Revert of rollout " + groupId + ": republish of " + control.groupId(), null, now);
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolloutReverted(groupId, g.rollout().rolloutId(), why, replacement))),
              st -> new Reverted(st.app(appId).group(groupId), st.app(appId).group(replacement.groupId())));
        });
  }

  private static GroupState activeRolloutGroup(AppState app, String groupId) {
    GroupState g = app.group(groupId);
    if (g == null) {
      throw CommandException.notFound("update-not-found", "app " + app.appId() + " has no update group " + groupId);
    }
    if (g.rollout() == null) {
      throw CommandException.conflict("not-a-rollout", "group " + groupId + " was not published as a rollout");
    }
    if (!g.rollout().active()) {
      throw CommandException.conflict(
          "rollout-not-active", "the rollout of group " + groupId + " is already " + g.rollout().status());
    }
    return g;
  }
}
