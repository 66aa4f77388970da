package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.commands.AssetPrune;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.ExportMetadata.AssetFile;
import dev.updraft.controlplane.commands.ExportMetadata.PlatformFiles;
import dev.updraft.controlplane.commands.ExportMetadata;
import dev.updraft.controlplane.commands.Requests.EmbeddedRollbackRequest;
import dev.updraft.controlplane.commands.Requests.PreparedPlatform;
import dev.updraft.controlplane.commands.Requests.PublishRequest;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.commands.Requests.RepublishRequest;
import dev.updraft.controlplane.commands.UpdateCommands;
import dev.updraft.controlplane.commands.Validate;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.StoredAsset;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Update groups: {@code GET/POST /v1/apps/{app}/updates}, {@code GET …/updates/{groupId}} and
 * {@code POST /v1/apps/{app}/rollbacks}. A publish checks the request's shape and that every file it
 * names is stored (on a worker thread) before the command runs.
 */
final class UpdateRoutes {
  private final ApiContext ctx;
  private final Timer publishTimer;

  UpdateRoutes(ApiContext ctx) {
    this.ctx = ctx;
    this.publishTimer =
        Timer.builder("updraft_control_publish_seconds")
            .description("time from a publish request to its answer (including idempotent retries)")
            .publishPercentileHistogram()
            .register(ctx.deps.metrics());
  }

  void mount(Router router, Handler<RoutingContext> body) {
    Auth auth = ctx.auth;
    router.get("/v1/apps/:app/updates").handler(auth.require(Role.READ)).handler(this::listUpdates);
    router.post("/v1/apps/:app/updates").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::publish);
    router.get("/v1/apps/:app/updates/:groupId").handler(auth.require(Role.READ)).handler(this::getUpdate);
    router.post("/v1/apps/:app/rollbacks").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::rollback);
  }

  private UpdateCommands commands() {
    return ctx.deps.commands().updates();
  }

  private record FileRef(String sha256, long size) {}

  private void publish(RoutingContext rc) {
    Timer.Sample sample = Timer.start(ctx.deps.metrics());
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    String idem = Validate.idempotencyKey(idempotencyKey(rc, b));
    // a retry answers before its files are checked again; the command repeats this check against the
    // writer's state, where two concurrent requests with one key are ordered
    Published earlier = UpdateCommands.replayOfPublish(a, idem, Json.string(b, "branch"), Json.string(b, "runtimeVersion"));
    if (earlier != null) {
      Json.send(rc, 200, Views.published(earlier));
      sample.stop(publishTimer);
      return;
    }
    String branch = Json.requiredString(b, "branch");
    String runtime = Json.string(b, "runtimeVersion");
    Validate.branch("branch", branch);
    Validate.runtimeVersion("runtimeVersion", runtime);
    List<PlatformFiles> platforms = ExportMetadata.parse(b.get("metadata"), Json.strings(b, "platforms"));
    Map<String, FileRef> needed = needed(platforms, files(b));
    Map<String, String> maps = sourceMaps(b, platforms);
    ObjectNode expoConfig = Json.object(b, "expoConfig");
    Integer pct = Json.integer(b, "rolloutPercentage");
    RolloutGuard guard = RolloutRoutes.guard(Json.object(b, "rolloutGuard"));
    String message = Json.string(b, "message");
    String commit = Json.string(b, "gitCommitHash");
    String app = a.appId();
    // held from before the check that they are stored until the group is folded: a prune leaves them alone
    List<String> held = new ArrayList<>();
    needed.values().forEach(f -> held.add(f.sha256()));
    ctx.deps.commands().assets().hold(app, held);
    ctx.vertx
        .executeBlocking(() -> {
          Map<String, StoredAsset> stored = stat(app, needed);
          maps.forEach((platform, sha) -> {
            if (!SourceMapRoutes.stored(ctx.deps.storage(), app, sha)) {
              throw CommandException.badRequest("source-map-not-uploaded", "sourceMaps." + platform + " (sha256=" + sha
                  + ") was never uploaded; upload it with PUT /v1/apps/" + app + "/source-maps/" + sha + " first");
            }
          });
          return stored;
        })
        .compose(
            stored ->
                commands()
                    .publish(
                        ctx.actor(rc), app,
                        new PublishRequest(branch, runtime, message, commit, prepare(platforms, stored, maps), expoConfig, pct, guard, idem)))
        .onComplete(
            ar -> {
              ctx.deps.commands().assets().release(app, held);
              sample.stop(publishTimer);
              if (ar.failed()) {
                rc.fail(ar.cause());
              } else {
                Json.send(rc, ar.result().replayed() ? 200 : 201, Views.published(ar.result()));
                retain(app, ar.result());
              }
            });
  }

  /** The entry of {@code files} for every path the metadata names, or 400 {@code missing-file}. */
  private static Map<String, FileRef> needed(List<PlatformFiles> platforms, Map<String, FileRef> files) {
    Map<String, FileRef> needed = new LinkedHashMap<>();
    for (String path : ExportMetadata.paths(platforms)) {
      FileRef f = files.get(path);
      if (f == null) {
        throw CommandException.badRequest(
            "missing-file", "metadata.json names " + path + " but files has no entry for it; is the export folder complete?");
      }
      needed.put(path, f);
    }
    return needed;
  }

  /** The platforms with their files resolved to stored assets. */
  private static List<PreparedPlatform> prepare(List<PlatformFiles> platforms, Map<String, StoredAsset> stored, Map<String, String> maps) {
    List<PreparedPlatform> prepared = new ArrayList<>();
    for (PlatformFiles pf : platforms) {
      StoredAsset launch = stored.get(pf.bundlePath());
      AssetRef launchRef = new AssetRef(launch.sha256Hex(), launch.md5Hex(), ContentTypes.JAVASCRIPT, null);
      List<AssetRef> assets = new ArrayList<>();
      for (AssetFile af : pf.assets()) {
        StoredAsset s = stored.get(af.path());
        assets.add(new AssetRef(s.sha256Hex(), s.md5Hex(), ContentTypes.of(af.ext()), "." + af.ext()));
      }
      prepared.add(new PreparedPlatform(pf.platform(), launchRef, assets, maps.get(pf.platform())));
    }
    return prepared;
  }

  /**
   * The stored asset of every needed path (worker thread), or 400 when one was never uploaded or differs,
   * 503 when the storage cannot tell.
   */
  private Map<String, StoredAsset> stat(String app, Map<String, FileRef> needed) {
    Map<String, StoredAsset> bySha = new HashMap<>();
    Map<String, StoredAsset> out = new HashMap<>();
    for (Map.Entry<String, FileRef> e : needed.entrySet()) {
      FileRef f = e.getValue();
      StoredAsset s;
      try {
        s = bySha.containsKey(f.sha256()) ? bySha.get(f.sha256()) : ctx.deps.storage().stat(app, f.sha256());
      } catch (IOException ex) {
        throw AssetUpload.storageUnavailable("could not say whether sha256=" + f.sha256() + " is stored", ex);
      }
      bySha.put(f.sha256(), s);
      if (s == null) {
        throw CommandException.badRequest(
            "asset-not-uploaded",
            "file " + e.getKey() + " (sha256=" + f.sha256() + ") was never uploaded; upload it with PUT /v1/apps/" + app + "/assets/" + f.sha256() + " first");
      }
      if (s.size() != f.size()) {
        throw CommandException.badRequest(
            "size-mismatch",
            "file " + e.getKey() + " is " + f.size() + " bytes but the stored bytes with sha256=" + f.sha256() + " are " + s.size() + " bytes");
      }
      out.put(e.getKey(), s);
    }
    return out;
  }

  /**
   * {@code sourceMaps}: platform to the SHA-256 of its launch asset's source map (uploaded with
   * {@code PUT source-maps/{sha256}}); absent or empty: no maps. 400 for a platform this publish does not have.
   */
  private static Map<String, String> sourceMaps(ObjectNode b, List<PlatformFiles> platforms) {
    ObjectNode m = Json.object(b, "sourceMaps");
    Map<String, String> out = new HashMap<>();
    if (m == null) {
      return out;
    }
    for (Map.Entry<String, JsonNode> e : m.properties()) {
      if (platforms.stream().noneMatch(p -> p.platform().equals(e.getKey()))) {
        throw CommandException.badRequest("invalid-field", "sourceMaps names platform '" + e.getKey() + "', which this publish does not have");
      }
      JsonNode v = e.getValue();
      if (v == null || !v.isTextual() || !AssetUpload.SHA.matcher(v.asText()).matches()) {
        throw CommandException.badRequest("invalid-field", "sourceMaps." + e.getKey() + " must be the lower-case hex SHA-256 of the uploaded map");
      }
      out.put(e.getKey(), v.asText());
    }
    return out;
  }

  private static Map<String, FileRef> files(ObjectNode b) {
    ObjectNode files = Json.object(b, "files");
    if (files == null) {
      throw CommandException.badRequest("missing-field", "files (path -> {sha256, size} for every file metadata.json names) is required");
    }
    Map<String, FileRef> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : files.properties()) {
      String path = ExportMetadata.path(e.getKey());
      JsonNode v = e.getValue();
      JsonNode sha = v == null ? null : v.get("sha256");
      JsonNode size = v == null ? null : v.get("size");
      if (sha == null || !sha.isTextual() || !AssetUpload.SHA.matcher(sha.asText()).matches()) {
        throw CommandException.badRequest("invalid-field", "files[\"" + e.getKey() + "\"].sha256 must be the lower-case hex SHA-256 of the file");
      }
      if (size == null || !size.isIntegralNumber() || size.asLong() < 0) {
        throw CommandException.badRequest("invalid-field", "files[\"" + e.getKey() + "\"].size must be the file's size in bytes");
      }
      out.put(path, new FileRef(sha.asText(), size.asLong()));
    }
    return out;
  }

  private static String idempotencyKey(RoutingContext rc, ObjectNode b) {
    String h = rc.request().getHeader("idempotency-key");
    return h != null ? h.trim() : Json.string(b, "idempotencyKey");
  }

  /** Held groups merged with the older ones of the history projection ({@link GroupReads}), newest first. */
  private void listUpdates(RoutingContext rc) {
    AppState a = ctx.app(rc);
    String branch = rc.queryParams().get("branch");
    String runtime = rc.queryParams().get("runtimeVersion");
    int limit = ApiContext.intParam(rc, "limit", 50, 1, 200);
    Long cursor = ApiContext.longParam(rc, "cursor");
    ctx.groups.page(a, branch, runtime, cursor, limit).onComplete(ar -> {
      if (ar.failed()) {
        rc.fail(ar.cause());
        return;
      }
      List<GroupState> page = ar.result();
      ObjectNode n = Json.MAPPER.createObjectNode();
      ArrayNode items = n.putArray("items");
      for (int i = 0; i < Math.min(limit, page.size()); i++) {
        items.add(Views.group(page.get(i), false));
      }
      if (page.size() > limit) {
        n.put("nextCursor", Long.toString(page.get(limit - 1).sequence()));
      } else {
        n.putNull("nextCursor");
      }
      Json.send(rc, 200, n);
    });
  }

  /** A held group, or one only the history projection has (shown with its stored fields). */
  private void getUpdate(RoutingContext rc) {
    AppState a = ctx.app(rc);
    String id = rc.pathParam("groupId");
    ctx.groups.find(a, id).onComplete(ar -> {
      if (ar.failed()) {
        rc.fail(ar.cause());
      } else if (ar.result() == null) {
        rc.fail(CommandException.notFound("update-not-found", "app " + a.appId() + " has no update group " + id));
      } else {
        Json.send(rc, 200, Views.group(ar.result(), true));
      }
    });
  }

  private void rollback(RoutingContext rc) {
    AppState a = ctx.app(rc);
    ObjectNode b = Json.body(rc);
    String idem = Validate.idempotencyKey(idempotencyKey(rc, b));
    String branch = Json.requiredString(b, "branch");
    String runtime = Json.string(b, "runtimeVersion");
    String to = Json.string(b, "toGroupId");
    boolean embedded = Json.bool(b, "embedded");
    List<String> platforms = Json.strings(b, "platforms");
    String message = Json.string(b, "message");
    if ((to == null) == !embedded) {
      throw CommandException.badRequest("invalid-rollback", "give exactly one of toGroupId (republish that group) or \"embedded\": true");
    }
    String actor = ctx.actor(rc);
    Future<Published> f =
        embedded
            ? commands().rollBackToEmbedded(actor, a.appId(), new EmbeddedRollbackRequest(branch, runtime, platforms, message, idem))
            : republish(a, actor, new RepublishRequest(branch, runtime, to, platforms, message, idem));
    f.onComplete(
        ar -> {
          if (ar.failed()) {
            rc.fail(ar.cause());
          } else {
            Json.send(rc, ar.result().replayed() ? 200 : 201, Views.published(ar.result()));
            retain(a.appId(), ar.result());
          }
        });
  }

  /**
   * A republish; a source the control plane no longer holds is taken from the history projection, once its
   * stored objects are known to be still there (409 {@code source-assets-pruned} when a prune removed some:
   * upload the export again and publish it instead). A retry of an earlier republish answers from the
   * idempotency window before any of this.
   */
  private Future<Published> republish(AppState a, String actor, RepublishRequest req) {
    if (a.group(req.sourceGroupId()) != null || (req.idempotencyKey() != null && a.idempotencyKeys().get(req.idempotencyKey()) != null)) {
      return commands().republish(actor, a.appId(), req);
    }
    return ctx.groups.stored(a, req.sourceGroupId()).compose(stored -> {
      if (stored == null) {
        return commands().republish(actor, a.appId(), req); // refused there: 404 update-not-found
      }
      String app = a.appId();
      List<String> held = new ArrayList<>(AssetPrune.addresses(stored.group().group()));
      ctx.deps.commands().assets().hold(app, held);
      return ctx.vertx.executeBlocking(() -> missing(app, held))
          .compose(missing -> {
            if (!missing.isEmpty()) {
              throw CommandException.conflict("source-assets-pruned",
                  "group " + req.sourceGroupId() + " is older than the groups this control plane holds, and " + missing.size()
                      + " of the files it needs are no longer stored (deleted by an asset prune), e.g. sha256=" + missing.get(0)
                      + "; upload its export again and publish it instead");
            }
            return commands().republish(actor, app, req, stored.group());
          })
          .andThen(ar -> ctx.deps.commands().assets().release(app, held));
    });
  }

  /** The addresses of {@code shas} not stored (worker thread); 503 when the storage cannot tell. */
  private List<String> missing(String app, List<String> shas) {
    List<String> out = new ArrayList<>();
    for (String sha : shas) {
      try {
        if (ctx.deps.storage().stat(app, sha) == null) {
          out.add(sha);
        }
      } catch (IOException ex) {
        throw AssetUpload.storageUnavailable("could not say whether sha256=" + sha + " is stored", ex);
      }
    }
    return out;
  }

  /** After a new group: the app's retention policies are applied (in the background; failures are logged). */
  private void retain(String app, Published p) {
    if (!p.replayed() && !ctx.state().retention(app).policies().isEmpty()) {
      ctx.deps.commands().retention().apply(app)
          .onFailure(t -> org.slf4j.LoggerFactory.getLogger(UpdateRoutes.class).warn("retention after publish appId={}: {}", app, t.getMessage()));
    }
  }
}
