package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.Role;
import dev.updraft.controlplane.commands.Requests.IssuedToken;
import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.signing.CertificateCheck;
import dev.updraft.controlplane.signing.KeyMaterialException;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.PemKeys;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.events.EventPayload.AppCreated;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.Renewal;
import dev.updraft.events.EventPayload.SigningKeyRegistered;
import dev.updraft.events.EventPayload.TokenIssued;
import dev.updraft.events.EventPayload.TokenRevoked;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** Apps, their tokens and their signing keys. Thread-safe. */
public final class AppCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;
  private final KeyStore keys;

  AppCommands(Vertx vertx, CommandProcessor processor, KeyStore keys) {
    this.vertx = vertx;
    this.processor = processor;
    this.keys = keys;
  }

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
          AppState app = Prologue.app(s, appId);
          List<PlatformUpdate> servable = new ArrayList<>();
          for (AppState.Servable sv : app.servable()) {
            servable.add(app.group(sv.groupId()).platform(sv.platform()));
          }
          return Plan.of(
              List.of(new NewEvent(appId, actor, signingKey(appId, key, servable, now))), st -> st.app(appId).signing());
        });
  }

  private SigningKeyRegistered signingKey(String appId, KeyMaterial key, List<PlatformUpdate> toResign, Instant now) {
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

  /** Issues a token with a {@link Role} by its wire name; its secret is in the result only. */
  public Future<IssuedToken> issueToken(String actor, String appId, String role, String label) {
    String secret = Tokens.newSecret();
    String tokenId = Tokens.newTokenId();
    return processor.submit(
        vertx,
        "issue-token",
        (s, now) -> {
          Prologue.app(s, appId);
          Role r = Role.of(role);
          if (r == null) {
            throw CommandException.badRequest("invalid-role", "role must be " + roleNames() + ": got '" + role + "'");
          }
          String l = Validate.text("label", label, 200);
          return Plan.of(
              List.of(new NewEvent(appId, actor, new TokenIssued(tokenId, r.wireName(), Tokens.sha256Hex(secret), l))),
              st -> new IssuedToken(st.app(appId).tokens().get(tokenId), secret));
        });
  }

  /** "read, publish or admin". */
  private static String roleNames() {
    Role[] all = Role.values();
    StringJoiner j = new StringJoiner(", ");
    for (int i = 0; i < all.length - 1; i++) {
      j.add(all[i].wireName());
    }
    return j + " or " + all[all.length - 1].wireName();
  }

  /** Revokes a token (revoking a revoked token changes nothing). */
  public Future<TokenState> revokeToken(String actor, String appId, String tokenId) {
    return processor.submit(
        vertx,
        "revoke-token",
        (s, now) -> {
          AppState app = Prologue.app(s, appId);
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
}
