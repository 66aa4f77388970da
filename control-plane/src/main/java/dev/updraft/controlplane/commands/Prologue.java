package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.UpdateGroup;

/**
 * What commands check first, in one order. Every command starts with {@link #app} (404
 * {@code app-not-found}). A command that puts a group at the head of a branch and runtime version
 * (publish, republish, roll back to embedded) then goes through {@link #start}: an earlier request with
 * its idempotency key is answered again (or refused with 409 {@code idempotency-key-reused} when that
 * request made something else), then the branch and runtime version are checked (400), then no rollout
 * may be in progress there (409 {@code rollout-in-progress}). Its own checks come after. Pure; command
 * thread or event loop.
 */
final class Prologue {
  private Prologue() {}

  /** A command that makes a group, for the reuse check of its idempotency key. */
  enum Maker {
    PUBLISH("publish", UpdateGroup.KIND_UPDATE),
    /** Makes a group of its source's kind, so the kind is not compared. */
    REPUBLISH("republish", null),
    ROLLBACK_TO_EMBEDDED("roll back", UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED);

    private final String noun;
    private final String kind;

    Maker(String noun, String kind) {
      this.noun = noun;
      this.kind = kind;
    }
  }

  /**
   * Where a group-making command stands after the prologue.
   *
   * @param replay nullable: a new request; otherwise the earlier answer to give again, with nothing appended
   */
  record Start(AppState app, Published replay) {}

  /** The app, or 404 {@code app-not-found}. */
  static AppState app(ControlState s, String appId) {
    AppState app = s.app(appId);
    if (app == null) {
      throw CommandException.notFound("app-not-found", "no app " + appId + "; create it with `updraft apps create " + appId + "`");
    }
    return app;
  }

  /** The prologue of a group-making command (see the class comment for the order). */
  static Start start(ControlState s, String appId, Maker maker, String idempotencyKey, String branch, String runtimeVersion) {
    AppState app = app(s, appId);
    Published replay = replayOf(app, maker, idempotencyKey, branch, runtimeVersion);
    if (replay != null) {
      return new Start(app, replay);
    }
    Validate.branch("branch", branch);
    Validate.runtimeVersion("runtimeVersion", runtimeVersion);
    noActiveRollout(app, branch, runtimeVersion);
    return new Start(app, null);
  }

  /**
   * The group an earlier request made with {@code idempotencyKey} (a retry), or null when the key is new;
   * 409 {@code idempotency-key-reused} when the key made a group of another kind than {@code maker} makes,
   * or one on another branch or runtime version (a null {@code branch} or {@code runtimeVersion} is not
   * compared).
   */
  static Published replayOf(AppState app, Maker maker, String idempotencyKey, String branch, String runtimeVersion) {
    if (idempotencyKey == null) {
      return null;
    }
    String groupId = app.idempotencyKeys().get(idempotencyKey);
    GroupState earlier = groupId == null ? null : app.group(groupId);
    if (earlier == null) {
      return null;
    }
    UpdateGroup g = earlier.group();
    if (maker.kind != null && !maker.kind.equals(g.kind())
        || branch != null && !branch.equals(g.branch())
        || runtimeVersion != null && !runtimeVersion.equals(g.runtimeVersion())) {
      throw CommandException.conflict(
          "idempotency-key-reused",
          "idempotency key " + idempotencyKey + " already made group " + g.groupId() + " (" + g.kind() + " on branch "
              + g.branch() + ", runtime " + g.runtimeVersion() + "); a retry must repeat that request, a different "
              + maker.noun + " needs a new key");
    }
    return new Published(earlier, true);
  }

  private static void noActiveRollout(AppState app, String branch, String runtimeVersion) {
    GroupState active = app.activeRollout(branch, runtimeVersion);
    if (active != null) {
      throw CommandException.conflict(
          "rollout-in-progress",
          "group " + active.groupId() + " is rolling out on branch " + branch + ", runtime " + runtimeVersion + " at "
              + active.rollout().percentage() + "%; finish or revert it first (updraft rollout --update "
              + active.groupId() + " --finish | --revert)");
    }
  }
}
