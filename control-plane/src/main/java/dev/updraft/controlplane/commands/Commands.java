package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Requests.ChannelRequest;
import dev.updraft.controlplane.commands.Requests.EmbeddedRollbackRequest;
import dev.updraft.controlplane.commands.Requests.IssuedToken;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.commands.Requests.PreparedPlatform;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.commands.Requests.PublishRequest;
import dev.updraft.controlplane.commands.Requests.RepublishRequest;
import dev.updraft.controlplane.commands.Requests.Reverted;
import dev.updraft.controlplane.commands.Requests.RolloutEdit;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.controlplane.render.ExpoTime;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.signing.CertificateCheck;
import dev.updraft.controlplane.signing.KeyMaterialException;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.PemKeys;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.RolloutState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventPayload.AppCreated;
import dev.updraft.events.EventPayload.BranchRollout;
import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.ManifestsRenewed;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.Renewal;
import dev.updraft.events.EventPayload.RolledBackToEmbedded;
import dev.updraft.events.EventPayload.Rollout;
import dev.updraft.events.EventPayload.RolloutChanged;
import dev.updraft.events.EventPayload.RolloutFinished;
import dev.updraft.events.EventPayload.RolloutGuard;
import dev.updraft.events.EventPayload.RolloutReverted;
import dev.updraft.events.EventPayload.SigningKeyRegistered;
import dev.updraft.events.EventPayload.TokenIssued;
import dev.updraft.events.EventPayload.TokenRevoked;
import dev.updraft.events.EventPayload.UpdateGroup;
import dev.updraft.events.EventPayload.UpdatePublished;
import dev.updraft.controlplane.render.UrlSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

/**
 * Every command the control plane accepts, as methods returning the future of its result. Each method
 * checks its input against the state on the command thread and plans its events; see
 * {@link CommandProcessor} for how they are appended. Thread-safe.
 *
 * <p>Actors: a token id, {@code admin} for the bootstrap token, {@code guard} for automatic reverts,
 * {@code system} for renewals.
 */
public final class Commands {
  public static final String ACTOR_ADMIN = "admin";
  public static final String ACTOR_GUARD = "guard";
  public static final String ACTOR_SYSTEM = "system";
  public static final Set<String> ROLES = Set.of("read", "publish", "admin");
  private static final int RENEWALS_PER_EVENT = 50;

  private final Vertx vertx;
  private final CommandProcessor processor;
  private final AssetStorage storage;
  private final KeyStore keys;
  private final Counter renewed;

  public Commands(Vertx vertx, CommandProcessor processor, AssetStorage storage, KeyStore keys, MeterRegistry metrics) {
    this.vertx = vertx;
    this.processor = processor;
    this.storage = storage;
    this.keys = keys;
    this.renewed =
        Counter.builder("updraft_control_manifests_renewed_total")
            .description("manifest bodies re-rendered with fresh pre-signed asset URLs")
            .register(metrics);
  }

  public ControlState state() {
    return processor.state();
  }

  // ---------------------------------------------------------------- apps, tokens, keys, channels

  /** Creates an app, optionally registering its signing key in the same transaction. */
  public Future<AppState> createApp(String actor, String appId, String displayName, KeyMaterial key) {
    return processor.submit(
        vertx,
        "create-app",
        (s, now) -> {
          Validate.appId(appId);
          String name = Validate.text("displayName", displayName, 200);
          if (s.app(appId) != null) {
            throw CommandException.conflict("app-exists", "app " + appId + " already exists");
          }
          List<NewEvent> events = new ArrayList<>();
          events.add(new NewEvent(appId, actor, new AppCreated(name == null ? appId : name)));
          if (key != null) {
            events.add(new NewEvent(appId, actor, signingKey(appId, key, List.of(), now)));
          }
          return Plan.of(events, st -> st.app(appId));
        });
  }

  /** Registers (or replaces) an app's signing key; servable bodies are re-signed with it. */
  public Future<SigningState> registerKey(String actor, String appId, KeyMaterial key) {
    return processor.submit(
        vertx,
        "register-key",
        (s, now) -> {
          AppState app = app(s, appId);
          List<PlatformUpdate> servable = new ArrayList<>();
          for (AppState.Servable sv : app.servable()) {
            servable.add(app.group(sv.groupId()).platform(sv.platform()));
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, signingKey(appId, key, servable, now))), st -> st.app(appId).signing());
        });
  }

  private SigningKeyRegistered signingKey(String appId, KeyMaterial key, List<PlatformUpdate> toResign, Instant now)
      throws CommandException {
    String keyId = Validate.keyId(key.keyId());
    X509Certificate cert;
    PrivateKey pk;
    try {
      cert = PemKeys.parseCertificate(key.certificatePem());
      pk = PemKeys.parsePrivateKey(key.privateKeyPem());
      CertificateCheck.validate(cert, pk, now);
    } catch (KeyMaterialException e) {
      throw CommandException.badRequest(e.code(), e.getMessage());
    }
    String certSha = PemKeys.sha256Hex(cert);
    try {
      keys.save(appId, certSha, pk);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write key store dir=" + keys.directory() + " appId=" + appId + ": " + e.getMessage(), e);
    }
    List<Renewal> resigned = new ArrayList<>();
    for (PlatformUpdate p : toResign) {
      resigned.add(new Renewal(p.updateId(), p.body(), Signer.signatureHeader(pk, keyId, p.body())));
    }
    String noUpdate = ManifestRenderer.NO_UPDATE_AVAILABLE;
    return new SigningKeyRegistered(
        keyId, PemKeys.toPem(cert), certSha, noUpdate, Signer.signatureHeader(pk, keyId, noUpdate), resigned);
  }

  /** Issues a token; its secret is in the result only. */
  public Future<IssuedToken> issueToken(String actor, String appId, String role, String label) {
    String secret = Tokens.newSecret();
    String tokenId = Tokens.newTokenId();
    return processor.submit(
        vertx,
        "issue-token",
        (s, now) -> {
          app(s, appId);
          String r = role == null ? null : role.toLowerCase(Locale.ROOT);
          if (r == null || !ROLES.contains(r)) {
            throw CommandException.badRequest("invalid-role", "role must be read, publish or admin: got '" + role + "'");
          }
          String l = Validate.text("label", label, 200);
          return Plan.of(
              List.of(new NewEvent(appId, actor, new TokenIssued(tokenId, r, Tokens.sha256Hex(secret), l))),
              st -> new IssuedToken(st.app(appId).tokens().get(tokenId), secret));
        });
  }

  /** Revokes a token (revoking a revoked token changes nothing). */
  public Future<TokenState> revokeToken(String actor, String appId, String tokenId) {
    return processor.submit(
        vertx,
        "revoke-token",
        (s, now) -> {
          AppState app = app(s, appId);
          TokenState t = app.tokens().get(tokenId);
          if (t == null) {
            throw CommandException.notFound("token-not-found", "app " + appId + " has no token " + tokenId);
          }
          if (t.revoked()) {
            return Plan.nothing(t);
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new TokenRevoked(tokenId))), st -> st.app(appId).tokens().get(tokenId));
        });
  }

  /** Maps a channel to a branch, optionally with a second branch for a share of devices. */
  public Future<ChannelMapped> mapChannel(String actor, String appId, ChannelRequest req) {
    return processor.submit(
        vertx,
        "map-channel",
        (s, now) -> {
          AppState app = app(s, appId);
          Validate.channel(req.channel());
          Validate.branch("branch", req.branch());
          BranchRollout rollout = null;
          if (req.rolloutBranch() != null) {
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
            // keep the rollout id while the second branch stays the same, so raising the share only adds devices
            String rolloutId =
                old != null && old.rollout() != null && old.rollout().branch().equals(req.rolloutBranch())
                        && java.util.Objects.equals(old.rollout().runtimeVersion(), rt)
                    ? old.rollout().rolloutId()
                    : UUID.randomUUID().toString();
            rollout = new BranchRollout(rolloutId, req.rolloutBranch(), req.percentage(), rt);
          } else if (req.percentage() != null || req.rolloutRuntimeVersion() != null) {
            throw CommandException.badRequest("invalid-branch", "percentage and rolloutRuntimeVersion need rolloutBranch");
          }
          ChannelMapped mapped = new ChannelMapped(req.channel(), req.branch(), rollout);
          return Plan.of(List.of(new NewEvent(appId, actor, mapped)), st -> st.app(appId).channels().get(req.channel()));
        });
  }

  // ---------------------------------------------------------------- publish, republish, roll back

  /** Publishes an update group from prepared (stored, hashed) files. */
  public Future<Published> publish(String actor, String appId, PublishRequest req) {
    return processor.submit(
        vertx,
        "publish",
        (s, now) -> {
          AppState app = app(s, appId);
          Published replay = replayOfPublish(app, req.idempotencyKey(), req.branch(), req.runtimeVersion());
          if (replay != null) {
            return Plan.nothing(replay);
          }
          Validate.branch("branch", req.branch());
          Validate.runtimeVersion("runtimeVersion", req.runtimeVersion());
          noActiveRollout(app, req.branch(), req.runtimeVersion());
          Rollout rollout = null;
          if (req.rolloutPercentage() != null) {
            Validate.percentage("rolloutPercentage", req.rolloutPercentage());
            List<String> platforms = new ArrayList<>();
            for (PreparedPlatform p : req.platforms()) {
              platforms.add(p.platform());
            }
            GroupState control = control(app, req.branch(), req.runtimeVersion(), platforms);
            rollout =
                new Rollout(
                    UUID.randomUUID().toString(), req.rolloutPercentage(), control == null ? null : control.groupId(), req.guard());
          } else if (req.guard() != null) {
            throw CommandException.badRequest("invalid-guard", "a rollout guard needs rolloutPercentage");
          }
          Instant createdAt = nextCreatedAt(app, req.branch(), req.runtimeVersion(), now);
          String created = ExpoTime.format(createdAt);
          Sign sign = signer(app);
          UrlSource urls = storage.urls(appId);
          List<PlatformUpdate> entries = new ArrayList<>();
          for (PreparedPlatform p : req.platforms()) {
            UUID id = UUID.randomUUID();
            String body =
                ManifestRenderer.manifest(
                    id, created, req.runtimeVersion(), p.launch(), p.assets(), req.expoConfig(), urls);
            entries.add(new PlatformUpdate(p.platform(), id.toString(), created, body, sign.header(body), p.launch().md5Hex(), keys(p)));
          }
          UpdateGroup g =
              new UpdateGroup(
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
          return Plan.of(
              List.of(new NewEvent(appId, actor, new UpdatePublished(g))),
              st -> new Published(st.app(appId).group(g.groupId()), false));
        });
  }

  /** Republishes an earlier group (an update or a roll back to embedded) as the newest on a branch. */
  public Future<Published> republish(String actor, String appId, RepublishRequest req) {
    return processor.submit(
        vertx,
        "republish",
        (s, now) -> {
          AppState app = app(s, appId);
          Published replay = replay(app, req.idempotencyKey());
          if (replay != null) {
            return Plan.nothing(replay);
          }
          Validate.branch("branch", req.branch());
          Validate.runtimeVersion("runtimeVersion", req.runtimeVersion());
          GroupState source = app.group(req.sourceGroupId());
          if (source == null) {
            throw CommandException.notFound("update-not-found", "app " + appId + " has no update group " + req.sourceGroupId());
          }
          if (!source.group().runtimeVersion().equals(req.runtimeVersion())) {
            throw CommandException.badRequest(
                "runtime-version-mismatch",
                "group " + source.groupId() + " was built for runtime version " + source.group().runtimeVersion()
                    + ", not " + req.runtimeVersion() + "; a device only runs updates of its own runtime version");
          }
          noActiveRollout(app, req.branch(), req.runtimeVersion());
          List<PlatformUpdate> from = choose(source, req.platforms());
          String message = Validate.text("message", req.message(), 1000);
          UpdateGroup g =
              copyOf(
                  app, source.group(), from, req.branch(), req.runtimeVersion(),
                  message != null ? message : "Republish of " + source.groupId()
                      + (source.group().message() == null ? "" : ": " + source.group().message()),
                  req.idempotencyKey(), now);
          EventPayload p = g.rollsBackToEmbedded() ? new RolledBackToEmbedded(g) : new UpdatePublished(g);
          return Plan.of(List.of(new NewEvent(appId, actor, p)), st -> new Published(st.app(appId).group(g.groupId()), false));
        });
  }

  /** Puts a roll back to the embedded update at the head of a branch and runtime version. */
  public Future<Published> rollBackToEmbedded(String actor, String appId, EmbeddedRollbackRequest req) {
    return processor.submit(
        vertx,
        "rollback-to-embedded",
        (s, now) -> {
          AppState app = app(s, appId);
          Published replay = replay(app, req.idempotencyKey());
          if (replay != null) {
            return Plan.nothing(replay);
          }
          Validate.branch("branch", req.branch());
          Validate.runtimeVersion("runtimeVersion", req.runtimeVersion());
          noActiveRollout(app, req.branch(), req.runtimeVersion());
          List<String> platforms = new ArrayList<>();
          if (req.platforms() != null && !req.platforms().isEmpty()) {
            for (String p : req.platforms()) {
              platforms.add(platform(p));
            }
          } else {
            platforms.addAll(app.platformsOn(req.branch(), req.runtimeVersion()));
            if (platforms.isEmpty()) {
              platforms.addAll(ExportMetadata.PLATFORMS);
            }
          }
          UpdateGroup g =
              rollbackGroup(
                  app, req.branch(), req.runtimeVersion(), platforms, Validate.text("message", req.message(), 1000),
                  req.idempotencyKey(), null, now);
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolledBackToEmbedded(g))),
              st -> new Published(st.app(appId).group(g.groupId()), false));
        });
  }

  // ---------------------------------------------------------------- rollouts

  /** Changes a rollout's percentage and/or guard. */
  public Future<GroupState> changeRollout(String actor, String appId, String groupId, RolloutEdit edit) {
    return processor.submit(
        vertx,
        "change-rollout",
        (s, now) -> {
          AppState app = app(s, appId);
          GroupState g = activeRolloutGroup(app, groupId);
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
          AppState app = app(s, appId);
          GroupState g = activeRolloutGroup(app, groupId);
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolloutFinished(groupId, g.rollout().rolloutId()))),
              st -> st.app(appId).group(groupId));
        });
  }

  /**
   * Reverts a rollout: republishes its control group, or rolls back to embedded when it had none.
   *
   * @param actor {@link #ACTOR_GUARD} for automatic reverts
   */
  public Future<Reverted> revertRollout(String actor, String appId, String groupId, String reason) {
    return processor.submit(
        vertx,
        "revert-rollout",
        (s, now) -> {
          AppState app = app(s, appId);
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
                rollbackGroup(app, rolled.branch(), rolled.runtimeVersion(), platforms, "Revert of rollout " + groupId, null, null, now);
          } else {
            replacement =
                copyOf(
                    app, control.group(), choose(control, platforms), rolled.branch(), rolled.runtimeVersion(),
                    "Revert of rollout " + groupId + ": republish of " + control.groupId(), null, now);
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, new RolloutReverted(groupId, g.rollout().rolloutId(), why, replacement))),
              st -> new Reverted(st.app(appId).group(groupId), st.app(appId).group(replacement.groupId())));
        });
  }

  // ---------------------------------------------------------------- renewals

  /**
   * Renders fresh manifests for servable entries whose pre-signed URLs are past half their lifetime.
   *
   * @return how many entries were renewed
   */
  public Future<Integer> renewDue() {
    Duration ttl = storage.urlTtl();
    if (ttl == null) {
      return Future.succeededFuture(0);
    }
    return processor.submit(
        vertx,
        "renew",
        (s, now) -> {
          List<NewEvent> events = new ArrayList<>();
          int total = 0;
          for (AppState app : s.apps().values()) {
            List<Renewal> due = new ArrayList<>();
            Sign sign = null;
            UrlSource urls = storage.urls(app.appId());
            for (AppState.Servable sv : app.servable()) {
              GroupState g = app.group(sv.groupId());
              if (g.group().rollsBackToEmbedded()) {
                continue;
              }
              PlatformUpdate p = g.platform(sv.platform());
              Instant rendered = g.renderedAt().get(p.updateId());
              if (rendered != null && rendered.plus(ttl.dividedBy(2)).isAfter(now)) {
                continue;
              }
              if (sign == null) {
                sign = signer(app);
              }
              String body = ManifestRenderer.rerender(p.body(), null, null, urls);
              due.add(new Renewal(p.updateId(), body, sign.header(body)));
            }
            for (int i = 0; i < due.size(); i += RENEWALS_PER_EVENT) {
              List<Renewal> chunk = due.subList(i, Math.min(due.size(), i + RENEWALS_PER_EVENT));
              events.add(
                  new NewEvent(
                      app.appId(),
                      ACTOR_SYSTEM,
                      new ManifestsRenewed(
                          "pre-signed asset URLs renewed before expiry (valid for " + ttl + " from " + now + ")", List.copyOf(chunk))));
            }
            total += due.size();
          }
          int n = total;
          return Plan.of(events, st -> n);
        })
        .onSuccess(renewed::increment);
  }

  // ---------------------------------------------------------------- helpers (command thread)

  private static AppState app(ControlState s, String appId) throws CommandException {
    AppState app = s.app(appId);
    if (app == null) {
      throw CommandException.notFound("app-not-found", "no app " + appId + "; create it with `updraft apps create " + appId + "`");
    }
    return app;
  }

  private static Published replay(AppState app, String idempotencyKey) {
    if (idempotencyKey == null) {
      return null;
    }
    String groupId = app.idempotencyKeys().get(idempotencyKey);
    return groupId == null ? null : new Published(app.group(groupId), true);
  }

  /**
   * The group an earlier publish made with {@code idempotencyKey} (a retry), or null when the key is new;
   * 409 {@code idempotency-key-reused} when the key made a group of another kind, or one on another branch
   * or runtime version (a null {@code branch} or {@code runtimeVersion} is not compared).
   */
  public static Published replayOfPublish(AppState app, String idempotencyKey, String branch, String runtimeVersion)
      throws CommandException {
    Published earlier = replay(app, idempotencyKey);
    if (earlier == null) {
      return null;
    }
    UpdateGroup g = earlier.group().group();
    if (!UpdateGroup.KIND_UPDATE.equals(g.kind())
        || branch != null && !branch.equals(g.branch())
        || runtimeVersion != null && !runtimeVersion.equals(g.runtimeVersion())) {
      throw CommandException.conflict(
          "idempotency-key-reused",
          "idempotency key " + idempotencyKey + " already made group " + g.groupId() + " (" + g.kind() + " on branch "
              + g.branch() + ", runtime " + g.runtimeVersion() + "); a retry must repeat that request, a different publish needs a new key");
    }
    return earlier;
  }

  private static void noActiveRollout(AppState app, String branch, String runtimeVersion) throws CommandException {
    GroupState active = app.activeRollout(branch, runtimeVersion);
    if (active != null) {
      throw CommandException.conflict(
          "rollout-in-progress",
          "group " + active.groupId() + " is rolling out on branch " + branch + ", runtime " + runtimeVersion + " at "
              + active.rollout().percentage() + "%; finish or revert it first (updraft rollout --update "
              + active.groupId() + " --finish | --revert)");
    }
  }

  /**
   * The control group of a new rollout: the previous newest group for the platforms, which must be one
   * group covering all of them (or none at all, then devices outside the rollout get nothing new).
   */
  private static GroupState control(AppState app, String branch, String runtimeVersion, List<String> platforms)
      throws CommandException {
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

  private static GroupState activeRolloutGroup(AppState app, String groupId) throws CommandException {
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

  private static Instant nextCreatedAt(AppState app, String branch, String runtimeVersion, Instant now) {
    String latest = app.latestCreatedAt(branch, runtimeVersion);
    return ExpoTime.nextAfter(now, latest == null ? null : ExpoTime.parse(latest));
  }

  private static String platform(String p) throws CommandException {
    if (!ExportMetadata.PLATFORMS.contains(p)) {
      throw CommandException.badRequest("unknown-platform", "platform '" + p + "' is not supported: expo-updates clients are ios or android");
    }
    return p;
  }

  private static List<PlatformUpdate> choose(GroupState source, List<String> platforms) throws CommandException {
    if (platforms == null || platforms.isEmpty()) {
      return source.group().platforms();
    }
    List<PlatformUpdate> out = new ArrayList<>();
    for (String p : platforms) {
      platform(p);
      PlatformUpdate u = source.platform(p);
      if (u == null) {
        throw CommandException.badRequest(
            "platform-not-in-group", "group " + source.groupId() + " has no " + p + " update");
      }
      out.add(u);
    }
    return out;
  }

  private UpdateGroup copyOf(
      AppState app, UpdateGroup source, List<PlatformUpdate> from, String branch, String runtimeVersion, String message,
      String idempotencyKey, Instant now) throws CommandException {
    if (source.rollsBackToEmbedded()) {
      List<String> platforms = new ArrayList<>();
      for (PlatformUpdate p : from) {
        platforms.add(p.platform());
      }
      return rollbackGroup(app, branch, runtimeVersion, platforms, message, idempotencyKey, source.groupId(), now);
    }
    String created = ExpoTime.format(nextCreatedAt(app, branch, runtimeVersion, now));
    Sign sign = signer(app);
    UrlSource urls = storage.urls(app.appId());
    List<PlatformUpdate> entries = new ArrayList<>();
    for (PlatformUpdate p : from) {
      UUID id = UUID.randomUUID();
      String body = ManifestRenderer.rerender(p.body(), id, created, urls);
      entries.add(new PlatformUpdate(p.platform(), id.toString(), created, body, sign.header(body), p.launchAssetKey(), p.assetKeys()));
    }
    return new UpdateGroup(
        UUID.randomUUID().toString(), UpdateGroup.KIND_UPDATE, branch, runtimeVersion, message, source.gitCommitHash(),
        idempotencyKey, source.groupId(), null, entries);
  }

  private UpdateGroup rollbackGroup(
      AppState app, String branch, String runtimeVersion, List<String> platforms, String message, String idempotencyKey,
      String republishedFrom, Instant now) throws CommandException {
    String commitTime = ExpoTime.format(nextCreatedAt(app, branch, runtimeVersion, now));
    String body = ManifestRenderer.rollBackToEmbedded(commitTime);
    Sign sign = signer(app);
    String signature = sign.header(body);
    List<PlatformUpdate> entries = new ArrayList<>();
    for (String p : platforms) {
      entries.add(new PlatformUpdate(p, UUID.randomUUID().toString(), commitTime, body, signature, null, List.of()));
    }
    return new UpdateGroup(
        UUID.randomUUID().toString(), UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, branch, runtimeVersion, message, null,
        idempotencyKey, republishedFrom, null, entries);
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

  /** Signs bodies for one app (or leaves them unsigned when it has no key). */
  @FunctionalInterface
  private interface Sign {
    String header(String body);
  }

  private Sign signer(AppState app) throws CommandException {
    SigningState signing = app.signing();
    if (signing == null) {
      return body -> null;
    }
    PrivateKey key;
    try {
      key = keys.load(app.appId(), signing.certificateSha256());
    } catch (IllegalStateException e) {
      throw CommandException.conflict("signing-key-unavailable", e.getMessage());
    }
    if (key == null) {
      throw CommandException.conflict(
          "signing-key-missing",
          "the private key for app " + app.appId() + " (certificate sha256=" + signing.certificateSha256()
              + ") is not in this control plane's key store; mount the key store the key was registered with, or register the key again (updraft keys register)");
    }
    String keyId = signing.keyId();
    return body -> Signer.signatureHeader(key, keyId, body);
  }
}
