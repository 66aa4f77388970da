package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.commands.KeyCommands;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.SigningState;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * An app's key ring: {@code PUT /v1/apps/{app}/signing-key} (add a key, or replace the key of its keyid),
 * {@code GET /v1/apps/{app}/keys}, {@code DELETE /v1/apps/{app}/keys/{keyId}[?force=true]} (retire; {@link KeyInUse}),
 * {@code GET /v1/apps/{app}/certificate[?keyId=]}.
 */
final class KeyRoutes {
  private final ApiContext ctx;
  private final KeyInUse inUse;

  KeyRoutes(ApiContext ctx) {
    this.ctx = ctx;
    this.inUse = new KeyInUse(ctx);
  }

  void mount(Router router, Handler<RoutingContext> body) {
    router.put("/v1/apps/:app/signing-key").handler(ctx.auth.requireThenBody(Role.ADMIN, body)).handler(this::putSigningKey);
    router.get("/v1/apps/:app/keys").handler(ctx.auth.require(Role.READ)).handler(this::listKeys);
    router.delete("/v1/apps/:app/keys/:keyId").handler(ctx.auth.require(Role.ADMIN)).handler(this::retireKey);
    router.get("/v1/apps/:app/certificate").handler(ctx.auth.require(Role.READ)).handler(this::getCertificate);
    inUse.mount(router);
  }

  /** Resolved per request: the API is also built without commands (route listings in tests). */
  private KeyCommands commands() {
    return ctx.deps.commands().keys();
  }

  /**
   * The key material of a body, or null when none is given and {@code required} is false: a private key
   * with a certificate ({@code certificatePem}) or a chain ({@code certificateChainPem}).
   */
  static KeyMaterial keyMaterial(ObjectNode b, boolean required) {
    String cert = Json.string(b, "certificatePem");
    String chain = Json.string(b, "certificateChainPem");
    String key = Json.string(b, "privateKeyPem");
    if (cert == null && chain == null && key == null && !required) {
      return null;
    }
    if (key == null || cert == null && chain == null) {
      throw CommandException.badRequest(
          "missing-field", "privateKeyPem and certificatePem (or certificateChainPem, for chain mode) are required to register a signing key");
    }
    return new KeyMaterial(cert, key, Json.string(b, "keyId"), chain);
  }

  private void putSigningKey(RoutingContext rc) {
    ctx.app(rc);
    ObjectNode b = Json.body(rc);
    ApiContext.reply(rc, commands().registerKey(ctx.actor(rc), rc.pathParam("app"), keyMaterial(b, true)), 200, Views::signing);
  }

  private void listKeys(RoutingContext rc) {
    Json.send(rc, 200, keys(ctx.app(rc).keys()));
  }

  /** Refused while devices still ask for the key, unless forced ({@link KeyInUse}). */
  private void retireKey(RoutingContext rc) {
    AppState a = ctx.app(rc);
    boolean force = KeyInUse.force(rc);
    String actor = ctx.actor(rc);
    KeyInUse.reply(rc, inUse.check(a, rc.pathParam("keyId"), force).compose(r -> commands().retireKey(actor, a.appId(), r)), KeyRoutes::keys);
  }

  private static ObjectNode keys(List<SigningState> ring) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    ArrayNode items = n.putArray("items");
    for (int i = 0; i < ring.size(); i++) {
      items.add(Views.key(ring.get(i), i == 0));
    }
    return n;
  }

  private void getCertificate(RoutingContext rc) {
    AppState a = ctx.app(rc);
    String keyId = rc.request().getParam("keyId");
    SigningState k = keyId == null ? a.newestKey() : a.key(keyId);
    if (k == null) {
      throw keyId == null
          ? CommandException.notFound("certificate-not-found", "app " + a.appId() + " has no signing key; register one with `updraft keys register`")
          : CommandException.notFound("key-not-found", "app " + a.appId() + " has no key with keyid " + keyId
              + " (list them with `updraft keys list --app " + a.appId() + "`)");
    }
    rc.response().putHeader("content-type", "application/x-pem-file").end(k.chain() ? k.certificateChainPem() : k.certificatePem());
  }
}
