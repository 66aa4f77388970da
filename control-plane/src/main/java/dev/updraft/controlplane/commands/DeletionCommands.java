package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deleting update groups, branches, channels and apps, and pinning groups. Every deletion is an event
 * with its actor; the event log keeps what was deleted. Thread-safe.
 */
public final class DeletionCommands {
  private static final Logger LOG = LoggerFactory.getLogger(DeletionCommands.class);

  private final Vertx vertx;
  private final CommandProcessor processor;
  private final KeyStore keys;

  DeletionCommands(Vertx vertx, CommandProcessor processor, KeyStore keys) {
    this.vertx = vertx;
    this.processor = processor;
    this.keys = keys;
  }

  /** What a deletion removed. */
  public record Deleted(String appId, String what, List<String> groupIds) {}

  /**
   * Deletes one update group: 404 when the app has none of that id; 409 {@code rollout-in-progress} when it
   * is an active rollout or its control; 409 {@code served-by-channel} when a channel serves it as its newest
   * update, unless {@code force} (devices then get the next older group).
   */
  public Future<Deleted> deleteGroup(String actor, String appId, String groupId, boolean force) {
    return deleteGroup(actor, appId, groupId, force, null);
  }

  /**
   * {@link #deleteGroup(String, String, String, boolean)}, or of {@code stored} when the control plane does
   * not hold it (a group only the history projection has: older than every group its line holds, so neither
   * a rollout nor a channel's newest update; the edges and the fold skip the id they do not hold).
   */
  public Future<Deleted> deleteGroup(String actor, String appId, String groupId, boolean force, GroupState stored) {
    return processor.submit(
        vertx,
        "delete-update",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          GroupState g = existing(app, groupId, stored);
          notInRollout(app, g);
          if (!force) {
            List<String> channels = channelsServingAsNewest(app, g);
            if (!channels.isEmpty()) {
              throw CommandException.conflict(
                  "served-by-channel",
                  "group " + groupId + " is the newest update channel" + (channels.size() == 1 ? " " : "s ") + String.join(", ", channels)
                      + " serve" + (channels.size() == 1 ? "s" : "") + " (branch " + g.group().branch() + ", runtime "
                      + g.group().runtimeVersion() + "); republish an earlier group (updraft rollback --branch " + g.group().branch()
                      + " --to <groupId>) or roll back to embedded first, or delete it with --force (devices then get the next"
                      + " older group)");
            }
          }
          UpdatesDeleted d = new UpdatesDeleted(List.of(groupId), force ? "forced" : null);
          return Plan.of(List.of(new NewEvent(appId, actor, d)), st -> new Deleted(appId, "update " + groupId, List.of(groupId)));
        });
  }

  /** Pins or unpins a group (a retention policy never deletes a pinned group); 404 for an unknown group. */
  public Future<GroupState> pin(String actor, String appId, String groupId, boolean pinned) {
    return pin(actor, appId, groupId, pinned, null);
  }

  /**
   * {@link #pin(String, String, String, boolean)}, or of {@code stored} when the control plane does not hold
   * it (the pin is recorded, and shown by the history; it cannot bring the group back into what is held).
   */
  public Future<GroupState> pin(String actor, String appId, String groupId, boolean pinned, GroupState stored) {
    return processor.submit(
        vertx,
        pinned ? "pin-update" : "unpin-update",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          GroupState g = existing(app, groupId, stored);
          if (s.retention(appId).isPinned(groupId) == pinned) {
            return Plan.nothing(g);
          }
          return Plan.of(List.of(new NewEvent(appId, actor, new UpdatePinned(groupId, pinned))), st -> {
            GroupState after = st.app(appId).group(groupId);
            return after != null ? after : g;
          });
        });
  }

  /**
   * Deletes a branch with its groups: 404 when the app knows no such branch, 409 {@code branch-mapped} while
   * a channel maps to it (the message names the channels).
   */
  public Future<Deleted> deleteBranch(String actor, String appId, String branch) {
    return processor.submit(
        vertx,
        "delete-branch",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          Validate.branch("branch", branch);
          if (!app.branches().containsKey(branch)) {
            throw CommandException.notFound("branch-not-found", "app " + appId + " has no branch " + branch);
          }
          Set<String> mapping = new TreeSet<>();
          for (ChannelMapped c : app.channels().values()) {
            if (c.branch().equals(branch) || c.rollout() != null && c.rollout().branch().equals(branch)) {
              mapping.add(c.channel());
            }
          }
          if (!mapping.isEmpty()) {
            throw CommandException.conflict(
                "branch-mapped",
                "branch " + branch + " is mapped by channel" + (mapping.size() == 1 ? " " : "s ") + String.join(", ", mapping)
                    + "; map " + (mapping.size() == 1 ? "it" : "them") + " to another branch (updraft channels set) or delete "
                    + (mapping.size() == 1 ? "it" : "them") + " (updraft channels delete) first");
          }
          List<String> ids = new ArrayList<>();
          for (GroupState g : app.groupsNewestFirst(branch, null)) {
            ids.add(g.groupId());
          }
          return Plan.of(List.of(new NewEvent(appId, actor, new BranchDeleted(branch))), st -> new Deleted(appId, "branch " + branch, ids));
        });
  }

  /**
   * Deletes a channel's mapping (the channel then serves the branch of its own name, as an unmapped one does):
   * 404 when it is not mapped, 409 {@code default-channel} while it is the app's default channel.
   */
  public Future<Deleted> deleteChannel(String actor, String appId, String channel) {
    return processor.submit(
        vertx,
        "delete-channel",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          Validate.channel(channel);
          if (!app.channels().containsKey(channel)) {
            throw CommandException.notFound("channel-not-found", "app " + appId + " has no channel " + channel);
          }
          if (channel.equals(app.defaultChannel())) {
            throw CommandException.conflict(
                "default-channel",
                "channel " + channel + " is the app's default channel; set another one (updraft apps update " + appId
                    + " --default-channel <channel>) or remove the default first");
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new ChannelDeleted(channel))), st -> new Deleted(appId, "channel " + channel, List.of()));
        });
  }

  /**
   * Deletes an app: {@code confirm} must repeat its id (400 {@code confirmation-mismatch}). Its tokens stop
   * working and devices get {@code unknown-app} once the event is folded; its signing keys are then destroyed
   * (the key store's files) and its stored assets become garbage for an asset prune.
   */
  public Future<Deleted> deleteApp(String actor, String appId, String confirm) {
    return processor.submit(
        vertx,
        "delete-app",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
          if (!appId.equals(confirm)) {
            throw CommandException.badRequest(
                "confirmation-mismatch", "deleting app " + appId + " needs confirm=" + appId + " (updraft apps delete " + appId + " --confirm "
                    + appId + "); got " + (confirm == null ? "none" : "'" + confirm + "'"));
          }
          List<String> ids = new ArrayList<>();
          for (GroupState g : app.groups()) {
            ids.add(g.groupId());
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new AppDeleted(app.displayName()))), st -> new Deleted(appId, "app " + appId, ids));
        })
        .compose(d -> vertx.executeBlocking(() -> destroyKeys(d)));
  }

  private Deleted destroyKeys(Deleted d) throws IOException {
    int n = keys.deleteApp(d.appId());
    LOG.info("destroyed {} signing key files of deleted app appId={}", n, d.appId());
    return d;
  }

  private static GroupState existing(AppState app, String groupId, GroupState stored) {
    GroupState g = groupId == null ? null : app.group(groupId);
    if (g == null && stored != null && stored.groupId().equals(groupId)) {
      g = stored;
    }
    if (g == null) {
      throw CommandException.notFound("update-not-found", "app " + app.appId() + " has no update group " + groupId);
    }
    return g;
  }

  /** 409 when {@code g} is under an active rollout or is the control of one. */
  static void notInRollout(AppState app, GroupState g) {
    for (GroupState r : app.activeRollouts()) {
      if (r.groupId().equals(g.groupId()) || g.groupId().equals(r.rollout().controlGroupId())) {
        throw CommandException.conflict(
            "rollout-in-progress",
            "group " + g.groupId() + (r == g || r.groupId().equals(g.groupId()) ? " is rolling out" : " is the control of the rollout of group "
                + r.groupId()) + " at " + r.rollout().percentage() + "%; finish or revert it first (updraft rollout --update "
                + r.groupId() + " --finish | --revert)");
      }
    }
  }

  /**
   * The channels that serve {@code g} as their newest update: those mapping its branch (first or second), or
   * the channel named after the branch when no mapping names that channel; sorted.
   */
  static List<String> channelsServingAsNewest(AppState app, GroupState g) {
    String branch = g.group().branch();
    boolean newest = false;
    for (PlatformUpdate p : g.group().platforms()) {
      GroupState head = app.latestWith(branch, g.group().runtimeVersion(), p.platform());
      newest |= head != null && head.groupId().equals(g.groupId());
    }
    if (!newest) {
      return List.of();
    }
    Set<String> out = new TreeSet<>();
    for (ChannelMapped c : app.channels().values()) {
      if (c.branch().equals(branch) || c.rollout() != null && c.rollout().branch().equals(branch)) {
        out.add(c.channel());
      }
    }
    if (!app.channels().containsKey(branch)) {
      out.add(branch);
    }
    return List.copyOf(out);
  }
}
