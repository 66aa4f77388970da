package dev.updraft.load.run;

import dev.updraft.load.fleet.Fleet;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the generator warms up against (`--warmup-on mirror`): a loopback server in the generator's own Vert.x
 * answering every device request with the bytes discovery received from the target for the same (platform,
 * runtime, channel), the manifest to a device on another update and "no update" to one on the discovered
 * update, headers included. The generator's client, multipart parsing, signature verification and manifest
 * checks then run hot from the run's first request, and the target receives no warm-up traffic (no burst of
 * check-ins into its pipeline as the measured run starts). Immutable after start; thread-safe.
 */
final class WarmupMirror {
  private record Answer(int status, MultiMap headers, Buffer body) {}

  private record Entry(String updateId, Answer manifest, Answer noUpdate) {}

  private final Map<String, Entry> entries = new HashMap<>();
  private HttpServer server;

  WarmupMirror(List<Discovered> discovered) {
    for (Discovered d : discovered) {
      Answer m = answer(d.manifest());
      entries.put(key(d.key().platform(), d.key().runtimeVersion(), d.key().channel()),
          new Entry(d.updateId(), m, d.noUpdate() == null ? m : answer(d.noUpdate())));
    }
  }

  private static String key(String platform, String runtime, String channel) {
    return platform + "|" + runtime + "|" + channel;
  }

  private static Answer answer(Captured c) {
    MultiMap h = HttpHeaders.headers();
    c.headers().forEach((k, v) -> {
      if (Captured.replayed(k)) {
        h.add(k, v);
      }
    });
    return new Answer(c.status(), h, Buffer.buffer(c.body()));
  }

  /** Listens on 127.0.0.1, any free port; the future holds the port. */
  Future<Integer> start(Vertx vertx) {
    return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(this::handle)
        .listen()
        .map(s -> {
          server = s;
          return s.actualPort();
        });
  }

  Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void handle(HttpServerRequest req) {
    MultiMap h = req.headers();
    Entry e = entries.get(key(h.get("expo-platform"), h.get("expo-runtime-version"), h.get("expo-channel-name")));
    if (e == null) {
      req.response().setStatusCode(404).end("no discovered answer for this platform, runtime and channel");
      return;
    }
    Answer a = Captured.answerFor(e.updateId(), h.get("expo-current-update-id"), e.manifest(), e.noUpdate());
    req.response().setStatusCode(a.status()).headers().addAll(a.headers());
    req.response().end(a.body());
  }

  /**
   * The warm-up's requests: for every discovered key a device on its embedded bundle (a manifest) and one on the
   * discovered update (no update), as the run shapes them, answers checked; without discovery one device of the
   * fleet's first key, answers not checked (as before); for a replay, the health path.
   */
  static List<Lane.WarmRequest> requests(RunConfig config, Fleet fleet, List<Discovered> discovered) {
    List<Lane.WarmRequest> out = new java.util.ArrayList<>();
    if (config.replayFile() != null) {
      out.add(new Lane.WarmRequest(HttpHeaders.headers(), "", false, false));
      return out;
    }
    String clientId = Fleet.nameUuid(config.seed(), "warmup").toString();
    for (Discovered d : discovered) {
      out.add(new Lane.WarmRequest(deviceHeaders(config, d.key(), clientId, d.key().embeddedUpdateId()), d.key().runtimeVersion(),
          config.signature(), true));
      if (d.updateId() != null) {
        out.add(new Lane.WarmRequest(deviceHeaders(config, d.key(), clientId, d.updateId()), d.key().runtimeVersion(), config.signature(),
            true));
      }
    }
    if (out.isEmpty()) {
      Fleet.Key k = fleet.keys().get(0);
      out.add(new Lane.WarmRequest(deviceHeaders(config, k, clientId, k.embeddedUpdateId()), k.runtimeVersion(), config.signature(), false));
    }
    return out;
  }

  private static MultiMap deviceHeaders(RunConfig config, Fleet.Key k, String clientId, String currentId) {
    MultiMap h = HttpHeaders.headers()
        .add(Lane.ACCEPT, Lane.ACCEPT_VALUE).add(Lane.PLATFORM, k.platform()).add(Lane.PROTOCOL, Lane.ONE)
        .add(Lane.RUNTIME, k.runtimeVersion()).add(Lane.CHANNEL, k.channel()).add(Lane.CLIENT_ID, clientId)
        .add(Lane.CURRENT, currentId).add(Lane.EMBEDDED, k.embeddedUpdateId());
    if (config.signature()) {
      h.add(Lane.EXPECT_SIGNATURE, "sig, keyid=\"" + config.signatureKeyId() + "\", alg=\"rsa-v1_5-sha256\"");
    }
    return h;
  }
}
