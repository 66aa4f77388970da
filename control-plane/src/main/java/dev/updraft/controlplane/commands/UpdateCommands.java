package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Prologue.Maker;
import dev.updraft.controlplane.commands.Requests.EmbeddedRollbackRequest;
import dev.updraft.controlplane.commands.Requests.PreparedPlatform;
import dev.updraft.controlplane.commands.Requests.PublishRequest;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.commands.Requests.RepublishRequest;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.controlplane.render.ExpoTime;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventPayload;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Publish, republish and roll back to embedded: each puts one new group at the head of a branch and
 * runtime version, after the same {@link Prologue}. Thread-safe.
 */
public final class UpdateCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;
  private final Groups groups;

  UpdateCommands(Vertx vertx, CommandProcessor processor, Groups groups) {
    this.vertx = vertx;
    this.processor = processor;
    this.groups = groups;
  }

  /** What a group-making command does after the prologue: build its group (or refuse). */
  @FunctionalInterface
  private interface GroupPlan {
    UpdateGroup group(AppState app, Instant now);
  }

  /**
   * Runs the prologue, then {@code plan}; appends {@code update.published}, or
   * {@code update.rolled-back-to-embedded} for a roll back group.
   */
  private Future<Published> head(
      String command, String actor, String appId, Maker maker, String idempotencyKey, String branch, String runtimeVersion,
      GroupPlan plan) {
    return processor.submit(
        vertx,
        command,
        (s, now) -> {
          Prologue.Start start = Prologue.start(s, appId, maker, idempotencyKey, branch, runtimeVersion);
          if (start.replay() != null) {
            return Plan.nothing(start.replay());
          }
          UpdateGroup g = plan.group(start.app(), now);
          EventPayload p = g.rollsBackToEmbedded() ? new RolledBackToEmbedded(g) : new UpdatePublished(g);
          return Plan.of(List.of(new NewEvent(appId, actor, p)), st -> new Published(st.app(appId).group(g.groupId()), false));
        });
  }

  /**
   * The group an earlier publish made with {@code idempotencyKey} (a retry), or null when the key is new;
   * 409 {@code idempotency-key-reused} when the key made a group of another kind, or one on another branch
   * or runtime version (a null {@code branch} or {@code runtimeVersion} is not compared). The publish
   * command checks this again against the writer's state.
   */
  public static Published replayOfPublish(AppState app, String idempotencyKey, String branch, String runtimeVersion) {
    return Prologue.replayOf(app, Maker.PUBLISH, idempotencyKey, branch, runtimeVersion);
  }

  /** Publishes an update group from prepared (stored, hashed) files. */
  public Future<Published> publish(String actor, String appId, PublishRequest req) {
    return head(
        "publish", actor, appId, Maker.PUBLISH, req.idempotencyKey(), req.branch(), req.runtimeVersion(),
        (app, now) -> {
          Rollout rollout = rollout(app, req);
          String created = ExpoTime.format(Groups.nextCreatedAt(app, req.branch(), req.runtimeVersion(), now));
          Groups.Sign sign = groups.signer(app);
          UrlSource urls = groups.urls(appId);
          List<PlatformUpdate> entries = new ArrayList<>();
          for (PreparedPlatform p : req.platforms()) {
            UUID id = UUID.randomUUID();
            String body = ManifestRenderer.manifest(
                id, created, req.runtimeVersion(), req.branch(), p.launch(), p.assets(), req.expoConfig(), urls);
            entries.add(sign.sign(body).entry(p.platform(), id.toString(), created, body, p.launch().md5Hex(), keys(p))
                .withSourceMap(p.sourceMap()));
          }
          return new UpdateGroup(
              UUID.randomUUID().toString(),
              UpdateGroup.KIND_UPDATE,
              req.branch(),
              req.runtimeVersion(),
              Validate.text("message", req.message(), 1000),
              Validate.text("gitCommitHash", req.gitCommitHash(), 100),
              req.idempotencyKey(),
              null,
              rollout,
              entries);
        });
  }

  /** The rollout a publish asks for (null: none), with its control group. */
  private static Rollout rollout(AppState app, PublishRequest req) {
    if (req.rolloutPercentage() == null) {
      if (req.guard() != null) {
        throw CommandException.badRequest("invalid-guard", "a rollout guard needs rolloutPercentage");
      }
      return null;
    }
    Validate.percentage("rolloutPercentage", req.rolloutPercentage());
    List<String> platforms = new ArrayList<>();
    for (PreparedPlatform p : req.platforms()) {
      platforms.add(p.platform());
    }
    GroupState control = control(app, req.branch(), req.runtimeVersion(), platforms);
    return new Rollout(UUID.randomUUID().toString(), req.rolloutPercentage(), control == null ? null : control.groupId(), req.guard());
  }

  /**
   * The control group of a new rollout: the previous newest group for the platforms, which must be one
   * group covering all of them (or none at all, then devices outside the rollout get nothing new).
   */
  private static GroupState control(AppState app, String branch, String runtimeVersion, List<String> platforms) {
    GroupState control = null;
    List<String> without = new ArrayList<>();
    for (String p : platforms) {
      GroupState g = app.latestWith(branch, runtimeVersion, p);
      if (g == null) {
        without.add(p);
      } else if (control == null) {
        control = g;
      } else if (control != g) {
        throw CommandException.conflict(
            "rollout-control-ambiguous",
            "the latest updates for these platforms on branch " + branch + ", runtime " + runtimeVersion
                + " come from different groups (" + control.groupId() + ", " + g.groupId()
                + "); roll out one platform at a time (--platform) or publish without a rollout");
      }
    }
    if (control != null && !without.isEmpty()) {
      throw CommandException.conflict(
          "rollout-control-ambiguous",
          "branch " + branch + ", runtime " + runtimeVersion + " has an earlier update for some platforms but none for "
              + String.join(", ", without) + "; roll out one platform at a time (--platform) or publish without a rollout");
    }
    return control;
  }

  private static List<String> keys(PreparedPlatform p) {
    List<String> out = new ArrayList<>();
    out.add(p.launch().md5Hex());
    for (AssetRef a : p.assets()) {
      if (!out.contains(a.md5Hex())) {
        out.add(a.md5Hex());
      }
    }
    return out;
  }

  /** Republishes an earlier group (an update or a roll back to embedded) as the newest on a branch. */
  public Future<Published> republish(String actor, String appId, RepublishRequest req) {
    return republish(actor, appId, req, null);
  }

  /**
   * Republishes, the source being {@code stored} when the control plane does not hold it (a group only the
   * history projection has; its assets were checked to be stored by the caller).
   */
  public Future<Published> republish(String actor, String appId, RepublishRequest req, GroupState stored) {
    return head(
        "republish", actor, appId, Maker.REPUBLISH, req.idempotencyKey(), req.branch(), req.runtimeVersion(),
        (app, now) -> {
          GroupState held = app.group(req.sourceGroupId());
          GroupState source = held != null ? held : stored != null && stored.groupId().equals(req.sourceGroupId()) ? stored : null;
          if (source == null) {
            throw CommandException.notFound("update-not-found", "app " + appId + " has no update group " + req.sourceGroupId());
          }
          if (!source.group().runtimeVersion().equals(req.runtimeVersion())) {
            throw CommandException.badRequest(
                "runtime-version-mismatch",
                "group " + source.groupId() + " was built for runtime version " + source.group().runtimeVersion()
                    + ", not " + req.runtimeVersion() + "; a device only runs updates of its own runtime version");
          }
          List<PlatformUpdate> from = Groups.choose(source, req.platforms());
          String message = Validate.text("message", req.message(), 1000);
          return groups.copyOf(
              app, source.group(), from, req.branch(), req.runtimeVersion(),
              message != null ? message : "Republish of " + source.groupId()
                  + (source.group().message() == null ? "" : ": " + source.group().message()),
              req.idempotencyKey(), now);
        });
  }

  /** Puts a roll back to the embedded update at the head of a branch and runtime version. */
  public Future<Published> rollBackToEmbedded(String actor, String appId, EmbeddedRollbackRequest req) {
    return head(
        "rollback-to-embedded", actor, appId, Maker.ROLLBACK_TO_EMBEDDED, req.idempotencyKey(), req.branch(), req.runtimeVersion(),
        (app, now) -> {
          List<String> platforms = new ArrayList<>();
          if (req.platforms() != null && !req.platforms().isEmpty()) {
            for (String p : req.platforms()) {
              platforms.add(Groups.platform(p));
            }
          } else {
            platforms.addAll(app.platformsOn(req.branch(), req.runtimeVersion()));
            if (platforms.isEmpty()) {
              platforms.addAll(ExportMetadata.PLATFORMS);
            }
          }
          return groups.rollBack(
              app, req.branch(), req.runtimeVersion(), platforms, Validate.text("message", req.message(), 1000),
              req.idempotencyKey(), null, now);
        });
  }
}
