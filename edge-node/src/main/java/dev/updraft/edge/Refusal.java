package dev.updraft.edge;

import dev.updraft.edge.image.Decision;
import dev.updraft.edge.image.Resolver;
import dev.updraft.events.CheckIn;
import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * A refused request as a value: the status, the {@code code} devices and dashboards key on, the message naming
 * the problem (the body is {@code {"error":{"code":…,"message":…}}}, {@link ErrorBody}), and at most one header
 * the refusal adds before the route's own ({@code allow}, {@code retry-after} or {@code connection}).
 *
 * <p>The request checks of the device route ({@link DeviceRoute}) return one instead of answering: the route
 * alone writes it, counts it and hands its check-in on. A refusal whose message is fixed is a constant with its
 * body rendered once (each answer wraps the same bytes); the others render their message when refused.
 */
final class Refusal {
  static final Refusal MISSING_APP_ID = fixed(400, "missing-app-id",
      "no app id: call /apps/{appId}/manifest, or send the expo-app-id header (or ?app=)", null, null);
  static final Refusal NOT_READY = fixed(503, "not-ready",
      "this edge is still reading the event log; retry in a few seconds", Names.RETRY_AFTER, Names.FIVE);
  static final Refusal DUPLICATE_PROTOCOL_VERSION = fixed(400, "duplicate-header",
      "expo-protocol-version was sent more than once", null, null);
  static final Refusal MISSING_PLATFORM = fixed(400, CheckIn.REASON_INVALID_PLATFORM,
      "expo-platform is missing (header, or ?platform=): send ios or android", null, null);
  static final Refusal MISSING_RUNTIME_VERSION = fixed(400, "missing-runtime-version",
      "expo-runtime-version is missing (header, or ?runtime-version=): set runtimeVersion in the app config", null, null);

  private static final AsciiString CONNECTION = AsciiString.cached("connection");
  private static final AsciiString CLOSE = AsciiString.cached("close");

  final int status;
  final String code;
  final String message;
  /** The header this refusal adds first, or {@code null}; with its value. */
  final AsciiString header;
  final AsciiString headerValue;
  /** The rendered body of a constant (wrapped per answer), or {@code null}. */
  private final byte[] fixedBody;

  private Refusal(int status, String code, String message, AsciiString header, AsciiString headerValue, byte[] fixedBody) {
    this.status = status;
    this.code = code;
    this.message = message;
    this.header = header;
    this.headerValue = headerValue;
    this.fixedBody = fixedBody;
  }

  private static Refusal fixed(int status, String code, String message, AsciiString header, AsciiString value) {
    return new Refusal(status, code, message, header, value, ErrorBody.of(code, message).getBytes());
  }

  private static Refusal of(int status, String code, String message) {
    return new Refusal(status, code, message, null, null, null);
  }

  /** The JSON body: the constant's bytes wrapped (no copy), or the message rendered now. */
  Buffer body() {
    return fixedBody != null ? BufferInternal.buffer(Unpooled.wrappedBuffer(fixedBody)) : ErrorBody.of(code, message);
  }

  static Refusal noRoute(String path) {
    return of(404, "not-found", "no route " + ErrorBody.shown(path) + ": devices call GET /apps/{appId}/manifest");
  }

  static Refusal methodNotAllowed(String method) {
    return new Refusal(405, "method-not-allowed", "only GET is served on the manifest route: got " + method,
        Names.ALLOW, Names.GET, null);
  }

  /** Devices send no body: the connection is closed rather than drained. */
  static Refusal bodyTooLarge(String contentLength, long limit) {
    return new Refusal(413, "body-too-large", "the manifest route takes no request body: got content-length "
        + ErrorBody.shown(contentLength) + " (at most " + limit + " bytes are read and discarded)", CONNECTION, CLOSE, null);
  }

  static Refusal invalidQuery(String query) {
    return of(400, "invalid-query", "the query string " + ErrorBody.shown(query)
        + " is not valid percent-encoding (each % must be followed by two hex digits)");
  }

  static Refusal imageTooOld(String message) {
    return new Refusal(503, "image-too-old", message, Names.RETRY_AFTER, Names.FIVE, null);
  }

  static Refusal unknownApp(String appId) {
    return of(404, "unknown-app", "no app " + ErrorBody.shown(appId)
        + " on this server: check updates.url in the app config (…/apps/{appId}/manifest)");
  }

  static Refusal unsupportedProtocol(String pv) {
    return of(406, "unsupported-protocol-version",
        "expo-protocol-version " + ErrorBody.shown(pv) + " is not supported: this server speaks 0 and 1");
  }

  static Refusal invalidPlatform(String platform) {
    return platform == null ? MISSING_PLATFORM : of(400, CheckIn.REASON_INVALID_PLATFORM,
        "expo-platform must be ios or android: got " + ErrorBody.shown(platform));
  }

  static Refusal missingChannel(String appId) {
    return of(400, "missing-channel", "expo-channel-name is missing (header, or ?channel-name=): set "
        + "updates.requestHeaders[\"expo-channel-name\"] in the app config, or give the app a default channel "
        + "(updraft apps update " + appId + " --default-channel production)");
  }

  static Refusal notAcceptable(String accept) {
    return of(406, "not-acceptable", "Accept " + ErrorBody.shown(accept)
        + " allows none of multipart/mixed, application/expo+json, application/json");
  }

  static Refusal signingNotConfigured(String appId) {
    return of(400, "signing-not-configured", "app " + ErrorBody.shown(appId)
        + " has no code-signing key but the request sent expo-expect-signature: register the app's certificate, "
        + "or remove updates.codeSigningCertificate from the app config");
  }

  static Refusal unknownKeyId(String keyId, String appId, String keyIds) {
    return of(400, "unknown-key-id", "expo-expect-signature asks for keyid " + ErrorBody.shown(keyId) + " but app "
        + ErrorBody.shown(appId) + " signs with keyid " + keyIds + ": set updates.codeSigningMetadata.keyid to one of "
        + "them, or register the key this build embeds (updraft keys register --key-id)");
  }

  /** The decision protocol 0 cannot carry ({@link Decision.Kind#NOT_SERVABLE_V0}); the code is its reason. */
  static Refusal notServableV0(Decision d, String runtimeVersion, String platform) {
    String where = "branch " + ErrorBody.shown(d.branch()) + ", runtime version " + ErrorBody.shown(runtimeVersion)
        + ", platform " + platform;
    String message;
    switch (d.reason()) {
      case Resolver.V0_ROLLBACK:
        message = "the " + where + " rolled back to the embedded bundle, which protocol 0 clients cannot be told: "
            + "upgrade expo-updates (protocol 1)";
        break;
      case CheckIn.REASON_PREVIOUSLY_FAILED:
        message = "the newest update for " + where + " failed on this device and nothing earlier is better, and "
            + "protocol 0 cannot be told 'no update'";
        break;
      default:
        message = "no update for " + where + "; protocol 0 clients cannot be told 'no update'";
    }
    return of(404, d.reason(), message);
  }

  static Refusal directiveNeedsMultipart(Decision d, String accept) {
    return of(406, "directive-needs-multipart", "the answer is a "
        + (d.kind() == Decision.Kind.ROLLBACK ? "rollBackToEmbedded" : "noUpdateAvailable")
        + " directive, which needs multipart/mixed, but Accept " + ErrorBody.shown(accept) + " allows only JSON");
  }

  static Refusal chainNeedsMultipart(String keyId, String accept) {
    return of(406, "certificate-chain-needs-multipart", "keyid " + ErrorBody.shown(keyId)
        + " signs with a certificate chain, which is sent in a certificate_chain part of multipart/mixed, but Accept "
        + ErrorBody.shown(accept) + " allows only JSON");
  }

  static Refusal notSigned(String appId, String entryId, String keyId) {
    return of(400, "update-not-signed", "the answer for app " + ErrorBody.shown(appId) + " ("
        + (entryId == null ? "noUpdateAvailable" : "entry " + entryId) + ") has no signature for key "
        + ErrorBody.shown(keyId) + ": republish it or renew its manifests");
  }

  @Override
  public String toString() {
    return status + " " + code + ": " + message;
  }
}
