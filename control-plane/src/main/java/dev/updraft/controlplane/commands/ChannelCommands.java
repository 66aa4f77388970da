package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Requests.ChannelRequest;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/** Channel mappings. Thread-safe. */
public final class ChannelCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;

  ChannelCommands(Vertx vertx, CommandProcessor processor) {
    this.vertx = vertx;
    this.processor = processor;
  }

  /** Maps a channel to a branch, optionally with a second branch for a share of devices. */
  public Future<ChannelMapped> mapChannel(String actor, String appId, ChannelRequest req) {
    return processor.submit(
        vertx,
        "map-channel",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          Validate.channel(req.channel());
          Validate.branch("branch", req.branch());
          ChannelMapped old = app.channels().get(req.channel());
          // a remap keeps a pause: lifting it is a resume of its own, never a side effect
          ChannelMapped mapped = new ChannelMapped(req.channel(), req.branch(), branchRollout(app, req))
              .withPaused(old != null && old.pausedNow());
          return Plan.of(List.of(new NewEvent(appId, actor, mapped)), st -> st.app(appId).channels().get(req.channel()));
        });
  }

  /**
   * Pauses ({@code pause} true) or resumes a channel: the same mapping (branch, branch rollout and its
   * buckets) with devices answered "no update" while paused. A channel never mapped is paused as the
   * mapping it has implicitly (the branch of its name). Pausing a paused channel, or resuming a served one,
   * writes nothing and answers the mapping as it is.
   */
  public Future<ChannelMapped> pauseChannel(String actor, String appId, String channel, boolean pause) {
    return processor.submit(
        vertx,
        pause ? "pause-channel" : "resume-channel",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          Validate.channel(channel);
          ChannelMapped old = app.channels().get(channel);
          if (old == null && !pause) {
            throw CommandException.notFound("channel-not-found", "app " + appId + " has no mapping of channel " + channel
                + " and it is not paused (list them with `updraft channels --app " + appId + "`)");
          }
          ChannelMapped current = old != null ? old : new ChannelMapped(channel, channel, null);
          if (old != null && old.pausedNow() == pause) {
            return Plan.nothing(old);
          }
          return Plan.of(List.of(new NewEvent(appId, actor, current.withPaused(pause))), st -> st.app(appId).channels().get(channel));
        });
  }

  /** The second branch a request asks for (null: none). */
  private static BranchRollout branchRollout(AppState app, ChannelRequest req) {
    if (req.rolloutBranch() == null) {
      if (req.percentage() != null || req.rolloutRuntimeVersion() != null) {
        throw CommandException.badRequest("invalid-branch", "percentage and rolloutRuntimeVersion need rolloutBranch");
      }
      return null;
    }
    Validate.branch("rolloutBranch", req.rolloutBranch());
    if (req.rolloutBranch().equals(req.branch())) {
      throw CommandException.badRequest("invalid-branch", "rolloutBranch must differ from branch " + req.branch());
    }
    if (req.percentage() == null) {
      throw CommandException.badRequest("invalid-percentage", "percentage is required with rolloutBranch");
    }
    Validate.percentage("percentage", req.percentage());
    String rt = req.rolloutRuntimeVersion() == null ? null : Validate.runtimeVersion("rolloutRuntimeVersion", req.rolloutRuntimeVersion());
    ChannelMapped old = app.channels().get(req.channel());
    // keep the rollout (its id and bucketing algorithm) while the second branch stays the same, so raising the
    // share only adds devices
    if (old != null && old.rollout() != null && old.rollout().branch().equals(req.rolloutBranch())
        && Objects.equals(old.rollout().runtimeVersion(), rt)) {
      return old.rollout().withPercentage(req.percentage());
    }
    return new BranchRollout(UUID.randomUUID().toString(), req.rolloutBranch(), req.percentage(), rt);
  }
}
