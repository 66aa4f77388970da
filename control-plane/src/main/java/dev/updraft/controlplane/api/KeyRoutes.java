package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.Role;
import dev.updraft.controlplane.commands.AppCommands;
import dev.updraft.controlplane.commands.CommandException;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.state.AppState;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** An app's code-signing key: {@code PUT /v1/apps/{app}/signing-key}, {@code GET /v1/apps/{app}/certificate}. */
final class KeyRoutes {
  private final ApiContext ctx;

  KeyRoutes(ApiContext ctx) {
    this.ctx = ctx;
  }

  void mount(Router router, Handler<RoutingContext> body) {
    router.put("/v1/apps/:app/signing-key").handler(ctx.auth.requireThenBody(Role.ADMIN, body)).handler(this::putSigningKey);
    router.get("/v1/apps/:app/certificate").handler(ctx.auth.require(Role.READ)).handler(this::getCertificate);
  }
  /** Resolved per request: the API is also built without commands (route listings in tests). */
  private AppCommands commands() {
    return ctx.deps.commands().apps();
  }


  /** The certificate and key of a body, or null when neither is given and {@code required} is false. */
  static KeyMaterial keyMaterial(ObjectNode b, boolean required) {
    String cert = Json.string(b, "certificatePem");
    String key = Json.string(b, "privateKeyPem");
    if (cert == null && key == null && !required) {
      return null;
    }
    if (cert == null || key == null) {
      throw CommandException.badRequest("missing-field", "certificatePem and privateKeyPem are both required to register a signing key");
    }
    return new KeyMaterial(cert, key, Json.string(b, "keyId"));
  }

  private void putSigningKey(RoutingContext rc) {
    ctx.app(rc);
    ObjectNode b = Json.body(rc);
    ApiContext.reply(rc, commands().registerKey(ctx.actor(rc), rc.pathParam("app"), keyMaterial(b, true)), 200, Views::signing);
  }

  private void getCertificate(RoutingContext rc) {
    AppState a = ctx.app(rc);
    if (a.signing() == null) {
      throw CommandException.notFound("certificate-not-found", "app " + a.appId() + " has no signing key; register one with `updraft keys register`");
    }
    rc.response().putHeader("content-type", "application/x-pem-file").end(a.signing().certificatePem());
  }
}
