package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.ControlPlaneConfig;
import dev.updraft.controlplane.ExtensionContext;
import dev.updraft.controlplane.Role;
import dev.updraft.controlplane.RolloutControl;
import dev.updraft.controlplane.commands.CommandException;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.commands.ExportMetadata;
import dev.updraft.controlplane.commands.ExportMetadata.AssetFile;
import dev.updraft.controlplane.commands.ExportMetadata.PlatformFiles;
import dev.updraft.controlplane.commands.Requests.ChannelRequest;
import dev.updraft.controlplane.commands.Requests.EmbeddedRollbackRequest;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.commands.Requests.PreparedPlatform;
import dev.updraft.controlplane.commands.Requests.PublishRequest;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.commands.Requests.RepublishRequest;
import dev.updraft.controlplane.commands.Requests.RolloutEdit;
import dev.updraft.controlplane.commands.Validate;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.AuditEntry;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.StoredAsset;
import dev.updraft.events.EventPayload.ChannelMapped;
import dev.updraft.events.EventPayload.RolloutGuard;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher API's routes (see {@code docs/api/openapi.yaml}). Handlers run on the event loop: they
 * check the request's shape, read the state snapshot, hand state-changing work to {@link Commands}
 * (the command thread) and storage work to worker threads.
 */
public final class PublisherApi {
  private static final Logger LOG = LoggerFactory.getLogger(PublisherApi.class);
  private static final String OPENAPI_RESOURCE = "/dev/updraft/controlplane/api/openapi.yaml";

  /** What the routes need. */
  public record Deps(
      ControlPlaneConfig config,
      Commands commands,
      CommandProcessor processor,
      AssetStorage storage,
      PrometheusMeterRegistry metrics,
      Path tmpDir,
      RolloutControl rollouts) {}

  private final Vertx vertx;
  private final Deps d;
  private final Router router;
  private final Auth auth;
  private final byte[] openApi;
  private final Timer publishTimer;

  public PublisherApi(Vertx vertx, Deps deps) {
    this.vertx = vertx;
    this.d = deps;
    this.router = Router.router(vertx);
    this.auth =
        new Auth(
            deps.config().adminToken(),
            () -> deps.processor().state(),
            new AuthThrottle(deps.config().authFailureLimit(), deps.config().authFailureWindow().toNanos(), System::nanoTime),
            io.micrometer.core.instrument.Counter.builder("updraft.control.auth.failures")
                .description("requests that presented an invalid, revoked or malformed token")
                .register(deps.metrics()),
            io.micrometer.core.instrument.Counter.builder("updraft.control.auth.throttled")
                .description("requests refused with 429 because their address presented too many invalid tokens")
                .register(deps.metrics()));
    this.openApi = loadOpenApi();
    this.publishTimer =
        Timer.builder("updraft_control_publish_seconds")
            .description("time from a publish request to its answer (including idempotent retries)")
            .publishPercentileHistogram()
            .register(deps.metrics());
    routes();
  }

  public Router router() {
    return router;
  }

  /** The context extensions mount their routes with. */
  public ExtensionContext extensionContext() {
    return new ExtensionContext() {
      @Override
      public Vertx vertx() {
        return vertx;
      }

      @Override
      public Router router() {
        return router;
      }

      @Override
      public Handler<RoutingContext> authorize(Role role) {
        return auth.require(role);
      }

      @Override
      public Handler<RoutingContext> authorizeAdmin() {
        return auth.requireBootstrapAdmin();
      }

      @Override
      public String actor(RoutingContext rc) {
        return auth.authenticate(rc).actor();
      }

      @Override
      public void fail(RoutingContext rc, int status, String code, String message) {
        Json.error(rc, status, code, message);
      }

      @Override
      public MeterRegistry meterRegistry() {
        return d.metrics();
      }

      @Override
      public ControlPlaneConfig config() {
        return d.config();
      }

      @Override
      public RolloutControl rollouts() {
        return d.rollouts();
      }

      @Override
      public dev.updraft.controlplane.state.ControlState state() {
        return d.processor().state();
      }
    };
  }

  private void routes() {
    Handler<RoutingContext> body = BodyHandler.create(false).setBodyLimit(d.config().maxRequestBytes());
    if (!d.config().corsOrigins().isEmpty()) {
      router.route().handler(new Cors(d.config().corsOrigins()));
    }
    router.get("/healthz").handler(this::health);
    router.get("/metrics").handler(this::metrics);
    router.get("/v1/openapi.yaml").handler(this::openApi);

    router.get("/v1/apps").handler(auth.requireAny()).handler(this::listApps);
    router.post("/v1/apps").handler(auth.requireBootstrapAdminThenBody(body)).handler(this::createApp);
    router.get("/v1/apps/:app").handler(auth.require(Role.READ)).handler(this::getApp);
    router.put("/v1/apps/:app/signing-key").handler(auth.requireThenBody(Role.ADMIN, body)).handler(this::putSigningKey);
    router.get("/v1/apps/:app/certificate").handler(auth.require(Role.READ)).handler(this::getCertificate);

    router.get("/v1/apps/:app/tokens").handler(auth.require(Role.ADMIN)).handler(this::listTokens);
    router.post("/v1/apps/:app/tokens").handler(auth.requireThenBody(Role.ADMIN, body)).handler(this::createToken);
    router.delete("/v1/apps/:app/tokens/:tokenId").handler(auth.require(Role.ADMIN)).handler(this::revokeToken);

    router.post("/v1/apps/:app/assets/missing").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::missingAssets);
    router
        .put("/v1/apps/:app/assets/:sha256")
        .handler(auth.require(Role.PUBLISH))
        .handler(this::requireApp)
        .handler(new AssetUpload(vertx, d.storage(), d.tmpDir(), d.config().maxAssetBytes()));

    router.get("/v1/apps/:app/updates").handler(auth.require(Role.READ)).handler(this::listUpdates);
    router.post("/v1/apps/:app/updates").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::publish);
    router.get("/v1/apps/:app/updates/:groupId").handler(auth.require(Role.READ)).handler(this::getUpdate);
    router.patch("/v1/apps/:app/updates/:groupId/rollout").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::changeRollout);
    router.post("/v1/apps/:app/updates/:groupId/rollout/finish").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::finishRollout);
    router.post("/v1/apps/:app/updates/:groupId/rollout/revert").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::revertRollout);
    router.post("/v1/apps/:app/rollbacks").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::rollback);

    router.get("/v1/apps/:app/branches").handler(auth.require(Role.READ)).handler(this::listBranches);
    router.get("/v1/apps/:app/channels").handler(auth.require(Role.READ)).handler(this::listChannels);
    router.put("/v1/apps/:app/channels/:channel").handler(auth.requireThenBody(Role.PUBLISH, body)).handler(this::mapChannel);
    router.get("/v1/apps/:app/audit").handler(auth.require(Role.READ)).handler(this::audit);

    router.route().failureHandler(this::failure);
    router.errorHandler(404, rc -> Json.error(rc, 404, "not-found", "no route " + rc.request().method() + " " + rc.request().path() + " (see /v1/openapi.yaml)"));
    router.errorHandler(405, rc -> Json.error(rc, 405, "method-not-allowed", "method " + rc.request().method() + " is not allowed on " + rc.request().path()));
  }

  // ------------------------------------------------------------------ plumbing

  /**
   * The server's answer to a request the HTTP decoder refused: a JSON error with 431 for a head above
   * {@link ControlPlaneConfig#MAX_HEADER_BYTES}, 414 for a request line above
   * {@link ControlPlaneConfig#MAX_REQUEST_LINE_BYTES}, 400 otherwise; the connection is closed after it.
   */
  public static void invalidRequest(io.vertx.core.http.HttpServerRequest req) {
    Throwable cause = req.decoderResult().cause();
    int status;
    String code;
    String message;
    if (cause instanceof io.netty.handler.codec.http.TooLongHttpHeaderException) {
      status = 431;
      code = "headers-too-large";
      message = "the request headers are above this server's limit of " + ControlPlaneConfig.MAX_HEADER_BYTES + " bytes";
    } else if (cause instanceof io.netty.handler.codec.http.TooLongHttpLineException) {
      status = 414;
      code = "uri-too-long";
      message = "the request line is above this server's limit of " + ControlPlaneConfig.MAX_REQUEST_LINE_BYTES + " bytes";
    } else {
      status = 400;
      code = "bad-request";
      message = "the request is not valid HTTP/1.1" + (cause == null || cause.getMessage() == null ? "" : ": " + cause.getMessage());
    }
    ObjectNode root = Json.MAPPER.createObjectNode();
    ObjectNode err = root.putObject("error");
    err.put("code", code);
    err.put("message", message);
    req.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .putHeader("connection", "close")
        .end(root.toString());
  }

  private void failure(RoutingContext rc) {
    Throwable t = rc.failure();
    if (t instanceof ApiException) {
      ApiException e = (ApiException) t;
      Json.error(rc, e.status(), e.code(), e.getMessage());
    } else if (t instanceof CommandException) {
      CommandException e = (CommandException) t;
      Json.error(rc, e.status(), e.code(), e.getMessage());
    } else if (rc.statusCode() == 413) {
      Json.error(rc, 413, "too-large", "the request body is above this server's limit of " + d.config().maxRequestBytes() + " bytes (--max-request-bytes)");
    } else if (t == null && rc.statusCode() >= 400 && rc.statusCode() < 500) {
      Json.error(rc, rc.statusCode(), "bad-request", "the request was refused (HTTP " + rc.statusCode() + ")");
    } else {
      String id = java.util.UUID.randomUUID().toString().substring(0, 8);
      LOG.error("internal error id={} on {} {}", id, rc.request().method(), rc.request().path(), t);
      Json.error(rc, 500, "internal", "internal error (id=" + id + "); the server log has the details");
    }
  }

  private static <T> T check(Checked<T> c) {
    try {
      return c.get();
    } catch (CommandException e) {
      throw new ApiException(e.status(), e.code(), e.getMessage());
    }
  }

  @FunctionalInterface
  private interface Checked<T> {
    T get() throws CommandException;
  }

  private <T> void reply(RoutingContext rc, Future<T> f, int status, java.util.function.Function<T, JsonNode> view) {
    f.onComplete(
        ar -> {
          if (ar.failed()) {
            rc.fail(ar.cause());
          } else {
            Json.send(rc, status, view.apply(ar.result()));
          }
        });
  }

  private String actor(RoutingContext rc) {
    return auth.authenticate(rc).actor();
  }

  private AppState app(RoutingContext rc) {
    String id = rc.pathParam("app");
    AppState a = d.processor().state().app(id);
    if (a == null) {
      throw new ApiException(404, "app-not-found", "no app " + id + "; create it with `updraft apps create " + id + "`");
    }
    return a;
  }

  private void requireApp(RoutingContext rc) {
    app(rc);
    rc.next();
  }

  private static byte[] loadOpenApi() {
    try (InputStream in = PublisherApi.class.getResourceAsStream(OPENAPI_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing classpath resource " + OPENAPI_RESOURCE);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + OPENAPI_RESOURCE, e);
    }
  }

  private static int intParam(RoutingContext rc, String name, int def, int min, int max) {
    String v = rc.queryParams().get(name);
    if (v == null || v.isEmpty()) {
      return def;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw new ApiException(400, "invalid-parameter", name + " must be between " + min + " and " + max + ": got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new ApiException(400, "invalid-parameter", name + " must be a whole number: got '" + v + "'");
    }
  }

  private static Long longParam(RoutingContext rc, String name) {
    String v = rc.queryParams().get(name);
    if (v == null || v.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ApiException(400, "invalid-parameter", name + " must be a whole number: got '" + v + "'");
    }
  }

  // ------------------------------------------------------------------ health, metrics, spec

  private void health(RoutingContext rc) {
    CommandProcessor.Health h = d.processor().health();
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("status", h.name().toLowerCase(java.util.Locale.ROOT));
    n.put("reason", d.processor().healthReason());
    n.put("apps", d.processor().state().apps().size());
    Json.send(rc, h == CommandProcessor.Health.OK ? 200 : 503, n);
  }

  private void metrics(RoutingContext rc) {
    rc.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(d.metrics().scrape());
  }

  private void openApi(RoutingContext rc) {
    rc.response().putHeader("content-type", "application/yaml").end(io.vertx.core.buffer.Buffer.buffer(openApi));
  }

  // ------------------------------------------------------------------ apps, keys, tokens

  private void listApps(RoutingContext rc) {
    Principal p = auth.authenticate(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (AppState a : d.processor().state().apps().values()) {
      if (p.mayActOn(a.appId())) {
        items.add(Views.app(a));
      }
    }
    Json.send(rc, 200, n);
  }

  private void createApp(RoutingContext rc) {
    ObjectNode b = Json.body(rc);
    String appId = Json.requiredString(b, "appId");
    KeyMaterial key = keyMaterial(b, false);
    reply(rc, d.commands().createApp(actor(rc), appId, Json.string(b, "displayName"), key), 201, Views::app);
  }

  private static KeyMaterial keyMaterial(ObjectNode b, boolean required) {
    String cert = Json.string(b, "certificatePem");
    String key = Json.string(b, "privateKeyPem");
    if (cert == null && key == null && !required) {
      return null;
    }
    if (cert == null || key == null) {
      throw new ApiException(400, "missing-field", "certificatePem and privateKeyPem are both required to register a signing key");
    }
    return new KeyMaterial(cert, key, Json.string(b, "keyId"));
  }

  private void getApp(RoutingContext rc) {
    Json.send(rc, 200, Views.app(app(rc)));
  }

  private void putSigningKey(RoutingContext rc) {
    app(rc);
    ObjectNode b = Json.body(rc);
    reply(rc, d.commands().registerKey(actor(rc), rc.pathParam("app"), keyMaterial(b, true)), 200, Views::signing);
  }

  private void getCertificate(RoutingContext rc) {
    AppState a = app(rc);
    if (a.signing() == null) {
      throw new ApiException(404, "certificate-not-found", "app " + a.appId() + " has no signing key; register one with `updraft keys register`");
    }
    rc.response().putHeader("content-type", "application/x-pem-file").end(a.signing().certificatePem());
  }

  private void listTokens(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (TokenState t : a.tokens().values()) {
      items.add(Views.token(t));
    }
    Json.send(rc, 200, n);
  }

  private void createToken(RoutingContext rc) {
    app(rc);
    ObjectNode b = Json.body(rc);
    reply(
        rc,
        d.commands().issueToken(actor(rc), rc.pathParam("app"), Json.requiredString(b, "role"), Json.string(b, "label")),
        201,
        t -> {
          ObjectNode n = Views.token(t.token());
          n.put("token", t.secret());
          return n;
        });
  }

  private void revokeToken(RoutingContext rc) {
    app(rc);
    reply(rc, d.commands().revokeToken(actor(rc), rc.pathParam("app"), rc.pathParam("tokenId")), 200, Views::token);
  }

  // ------------------------------------------------------------------ assets

  private void missingAssets(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    List<String> shas = Json.strings(b, "sha256");
    if (shas == null) {
      throw new ApiException(400, "missing-field", "sha256 (an array of lower-case hex SHA-256 values) is required");
    }
    if (shas.size() > 10_000) {
      throw new ApiException(400, "invalid-field", "at most 10000 hashes per request: got " + shas.size());
    }
    Set<String> distinct = new LinkedHashSet<>();
    for (String s : shas) {
      if (!AssetUpload.SHA.matcher(s).matches()) {
        throw new ApiException(400, "invalid-sha256", "not a lower-case hex SHA-256: '" + s + "'");
      }
      distinct.add(s);
    }
    vertx
        .executeBlocking(
            () -> {
              List<String> missing = new ArrayList<>();
              for (String s : distinct) {
                if (d.storage().stat(a.appId(), s) == null) {
                  missing.add(s);
                }
              }
              return missing;
            })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                rc.fail(ar.cause());
                return;
              }
              ObjectNode n = Json.MAPPER.createObjectNode();
              ArrayNode m = n.putArray("missing");
              ar.result().forEach(m::add);
              Json.send(rc, 200, n);
            });
  }

  // ------------------------------------------------------------------ publish and reads of updates

  private record FileRef(String sha256, long size) {}

  private void publish(RoutingContext rc) {
    Timer.Sample sample = Timer.start(d.metrics());
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    String idem = check(() -> Validate.idempotencyKey(idempotencyKey(rc, b)));
    // a retry answers before its files are checked again; the command repeats this check against the
    // writer's state, where two concurrent requests with one key are ordered
    Published earlier = check(() -> Commands.replayOfPublish(a, idem, Json.string(b, "branch"), Json.string(b, "runtimeVersion")));
    if (earlier != null) {
      Json.send(rc, 200, published(earlier));
      sample.stop(publishTimer);
      return;
    }
    String branch = Json.requiredString(b, "branch");
    String runtime = Json.string(b, "runtimeVersion");
    check(() -> Validate.branch("branch", branch));
    check(() -> Validate.runtimeVersion("runtimeVersion", runtime));
    List<PlatformFiles> platforms = check(() -> ExportMetadata.parse(b.get("metadata"), Json.strings(b, "platforms")));
    Map<String, FileRef> files = files(b);
    Map<String, FileRef> needed = new LinkedHashMap<>();
    for (String path : ExportMetadata.paths(platforms)) {
      FileRef f = files.get(path);
      if (f == null) {
        throw new ApiException(
            400, "missing-file", "metadata.json names " + path + " but files has no entry for it; is the export folder complete?");
      }
      needed.put(path, f);
    }
    ObjectNode expoConfig = Json.object(b, "expoConfig");
    Integer pct = Json.integer(b, "rolloutPercentage");
    RolloutGuard guard = guard(Json.object(b, "rolloutGuard"));
    String message = Json.string(b, "message");
    String commit = Json.string(b, "gitCommitHash");
    String app = a.appId();
    vertx
        .executeBlocking(() -> stat(app, needed))
        .compose(
            stored -> {
              List<PreparedPlatform> prepared = new ArrayList<>();
              for (PlatformFiles pf : platforms) {
                StoredAsset launch = stored.get(pf.bundlePath());
                AssetRef launchRef = new AssetRef(launch.sha256Hex(), launch.md5Hex(), ContentTypes.JAVASCRIPT, null);
                List<AssetRef> assets = new ArrayList<>();
                for (AssetFile af : pf.assets()) {
                  StoredAsset s = stored.get(af.path());
                  assets.add(new AssetRef(s.sha256Hex(), s.md5Hex(), ContentTypes.of(af.ext()), "." + af.ext()));
                }
                prepared.add(new PreparedPlatform(pf.platform(), launchRef, assets));
              }
              return d.commands()
                  .publish(actor(rc), app, new PublishRequest(branch, runtime, message, commit, prepared, expoConfig, pct, guard, idem));
            })
        .onComplete(
            ar -> {
              sample.stop(publishTimer);
              if (ar.failed()) {
                rc.fail(ar.cause());
              } else {
                Json.send(rc, ar.result().replayed() ? 200 : 201, published(ar.result()));
              }
            });
  }

  private Map<String, StoredAsset> stat(String app, Map<String, FileRef> needed) throws IOException {
    Map<String, StoredAsset> bySha = new HashMap<>();
    Map<String, StoredAsset> out = new HashMap<>();
    for (Map.Entry<String, FileRef> e : needed.entrySet()) {
      FileRef f = e.getValue();
      StoredAsset s = bySha.containsKey(f.sha256()) ? bySha.get(f.sha256()) : d.storage().stat(app, f.sha256());
      bySha.put(f.sha256(), s);
      if (s == null) {
        throw new ApiException(
            400, "asset-not-uploaded",
            "file " + e.getKey() + " (sha256=" + f.sha256() + ") was never uploaded; upload it with PUT /v1/apps/" + app + "/assets/" + f.sha256() + " first");
      }
      if (s.size() != f.size()) {
        throw new ApiException(
            400, "size-mismatch",
            "file " + e.getKey() + " is " + f.size() + " bytes but the stored bytes with sha256=" + f.sha256() + " are " + s.size() + " bytes");
      }
      out.put(e.getKey(), s);
    }
    return out;
  }

  private static Map<String, FileRef> files(ObjectNode b) {
    ObjectNode files = Json.object(b, "files");
    if (files == null) {
      throw new ApiException(400, "missing-field", "files (path -> {sha256, size} for every file metadata.json names) is required");
    }
    Map<String, FileRef> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> e : files.properties()) {
      String path = check(() -> ExportMetadata.path(e.getKey()));
      JsonNode v = e.getValue();
      JsonNode sha = v == null ? null : v.get("sha256");
      JsonNode size = v == null ? null : v.get("size");
      if (sha == null || !sha.isTextual() || !AssetUpload.SHA.matcher(sha.asText()).matches()) {
        throw new ApiException(400, "invalid-field", "files[\"" + e.getKey() + "\"].sha256 must be the lower-case hex SHA-256 of the file");
      }
      if (size == null || !size.isIntegralNumber() || size.asLong() < 0) {
        throw new ApiException(400, "invalid-field", "files[\"" + e.getKey() + "\"].size must be the file's size in bytes");
      }
      out.put(path, new FileRef(sha.asText(), size.asLong()));
    }
    return out;
  }

  private static RolloutGuard guard(ObjectNode g) {
    if (g == null) {
      return null;
    }
    Double rate = Json.number(g, "maxFailureRatePercent");
    Integer min = Json.integer(g, "minDevices");
    Long window = Json.longValue(g, "windowSeconds");
    if (rate == null || rate < 0 || rate > 100) {
      throw new ApiException(400, "invalid-guard", "rolloutGuard.maxFailureRatePercent must be a number from 0 to 100");
    }
    if (min == null || min < 1) {
      throw new ApiException(400, "invalid-guard", "rolloutGuard.minDevices must be at least 1");
    }
    if (window == null || window < 60 || window > 30L * 24 * 3600) {
      throw new ApiException(400, "invalid-guard", "rolloutGuard.windowSeconds must be between 60 and 2592000");
    }
    return new RolloutGuard(rate, min, window);
  }

  private static String idempotencyKey(RoutingContext rc, ObjectNode b) {
    String h = rc.request().getHeader("idempotency-key");
    return h != null ? h.trim() : Json.string(b, "idempotencyKey");
  }

  private static ObjectNode published(Published p) {
    ObjectNode n = Views.group(p.group(), true);
    n.put("replayed", p.replayed());
    return n;
  }

  private void listUpdates(RoutingContext rc) {
    AppState a = app(rc);
    String branch = rc.queryParams().get("branch");
    String runtime = rc.queryParams().get("runtimeVersion");
    int limit = intParam(rc, "limit", 50, 1, 200);
    Long cursor = longParam(rc, "cursor");
    List<GroupState> all = a.groupsNewestFirst(branch, runtime);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    Long next = null;
    for (GroupState g : all) {
      if (cursor != null && g.sequence() >= cursor) {
        continue;
      }
      if (items.size() == limit) {
        next = items.isEmpty() ? null : items.get(items.size() - 1).get("sequence").asLong();
        break;
      }
      items.add(Views.group(g, false));
    }
    if (next == null) {
      n.putNull("nextCursor");
    } else {
      n.put("nextCursor", Long.toString(next));
    }
    Json.send(rc, 200, n);
  }

  private GroupState group(RoutingContext rc, AppState a) {
    GroupState g = a.group(rc.pathParam("groupId"));
    if (g == null) {
      throw new ApiException(404, "update-not-found", "app " + a.appId() + " has no update group " + rc.pathParam("groupId"));
    }
    return g;
  }

  private void getUpdate(RoutingContext rc) {
    AppState a = app(rc);
    Json.send(rc, 200, Views.group(group(rc, a), true));
  }

  private void changeRollout(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    Integer pct = Json.integer(b, "percentage");
    JsonNode g = b.get("guard");
    boolean clear = g != null && g.isNull();
    RolloutGuard guard = clear ? null : guard(Json.object(b, "guard"));
    if (pct == null && guard == null && !clear) {
      throw new ApiException(400, "missing-field", "give percentage and/or guard (null removes the guard)");
    }
    reply(rc, d.commands().changeRollout(actor(rc), a.appId(), rc.pathParam("groupId"), new RolloutEdit(pct, guard, clear)), 200, gs -> Views.group(gs, false));
  }

  private void finishRollout(RoutingContext rc) {
    AppState a = app(rc);
    reply(rc, d.commands().finishRollout(actor(rc), a.appId(), rc.pathParam("groupId")), 200, gs -> Views.group(gs, false));
  }

  private void revertRollout(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    reply(
        rc,
        d.commands().revertRollout(actor(rc), a.appId(), rc.pathParam("groupId"), Json.string(b, "reason")),
        200,
        r -> {
          ObjectNode n = Json.MAPPER.createObjectNode();
          n.set("reverted", Views.group(r.reverted(), false));
          n.set("replacement", Views.group(r.replacement(), true));
          return n;
        });
  }

  private void rollback(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    String idem = check(() -> Validate.idempotencyKey(idempotencyKey(rc, b)));
    String branch = Json.requiredString(b, "branch");
    String runtime = Json.string(b, "runtimeVersion");
    String to = Json.string(b, "toGroupId");
    boolean embedded = Json.bool(b, "embedded");
    List<String> platforms = Json.strings(b, "platforms");
    String message = Json.string(b, "message");
    if ((to == null) == !embedded) {
      throw new ApiException(400, "invalid-rollback", "give exactly one of toGroupId (republish that group) or \"embedded\": true");
    }
    Future<Published> f =
        embedded
            ? d.commands().rollBackToEmbedded(actor(rc), a.appId(), new EmbeddedRollbackRequest(branch, runtime, platforms, message, idem))
            : d.commands().republish(actor(rc), a.appId(), new RepublishRequest(branch, runtime, to, platforms, message, idem));
    f.onComplete(
        ar -> {
          if (ar.failed()) {
            rc.fail(ar.cause());
          } else {
            Json.send(rc, ar.result().replayed() ? 200 : 201, published(ar.result()));
          }
        });
  }

  // ------------------------------------------------------------------ branches, channels, audit

  private void listBranches(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (Map.Entry<String, List<String>> e : a.branches().entrySet()) {
      ObjectNode bn = items.addObject();
      bn.put("branch", e.getKey());
      ArrayNode rts = bn.putArray("runtimeVersions");
      for (String rt : e.getValue()) {
        List<GroupState> gs = a.groupsNewestFirst(e.getKey(), rt);
        ObjectNode rn = rts.addObject();
        rn.put("runtimeVersion", rt);
        rn.put("groupCount", gs.size());
        rn.put("latestGroupId", gs.isEmpty() ? null : gs.get(0).groupId());
        GroupState active = a.activeRollout(e.getKey(), rt);
        rn.put("activeRolloutGroupId", active == null ? null : active.groupId());
      }
    }
    Json.send(rc, 200, n);
  }

  private void listChannels(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (ChannelMapped c : a.channels().values()) {
      items.add(Views.channel(c));
    }
    Json.send(rc, 200, n);
  }

  private void mapChannel(RoutingContext rc) {
    AppState a = app(rc);
    ObjectNode b = Json.body(rc);
    ChannelRequest req =
        new ChannelRequest(
            rc.pathParam("channel"),
            Json.requiredString(b, "branch"),
            Json.string(b, "rolloutBranch"),
            Json.integer(b, "percentage"),
            Json.string(b, "rolloutRuntimeVersion"));
    reply(rc, d.commands().mapChannel(actor(rc), a.appId(), req), 200, Views::channel);
  }

  private void audit(RoutingContext rc) {
    AppState a = app(rc);
    int limit = intParam(rc, "limit", 50, 1, 500);
    Long before = longParam(rc, "before");
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    List<AuditEntry> all = a.audit();
    Long next = null;
    for (int i = all.size() - 1; i >= 0; i--) {
      AuditEntry e = all.get(i);
      if (before != null && e.sequence() >= before) {
        continue;
      }
      if (items.size() == limit) {
        next = all.get(i + 1).sequence();
        break;
      }
      items.add(Views.audit(e));
    }
    if (next == null) {
      n.putNull("nextBefore");
    } else {
      n.put("nextBefore", next);
    }
    Json.send(rc, 200, n);
  }

  /** Methods and paths of every route on {@code router} (for the OpenAPI check). */
  public static Set<String> describe(Router router) {
    Set<String> out = new LinkedHashSet<>();
    for (io.vertx.ext.web.Route r : router.getRoutes()) {
      if (r.getPath() == null || r.methods() == null) {
        continue;
      }
      for (HttpMethod m : r.methods()) {
        out.add(m.name() + " " + r.getPath().replaceAll(":([A-Za-z0-9_]+)", "{$1}"));
      }
    }
    return out;
  }
}
