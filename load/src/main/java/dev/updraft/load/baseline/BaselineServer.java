package dev.updraft.load.baseline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.load.report.Summary;
import dev.updraft.load.run.Captured;
import dev.updraft.load.run.Discovered;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The machine's ceiling: a trivial Vert.x server answering every request with pre-built bytes captured
 * from one real response of the target. For each (platform, runtime, channel) it holds the manifest
 * response and the "no update" response: a request whose {@code expo-current-update-id} equals the
 * captured update gets the second, any other the first (one header comparison: the least any server
 * does). {@code /healthz} and {@code /readyz} answer 200. Immutable after start; thread-safe.
 */
public final class BaselineServer {
  /** Pre-built responses for one key. */
  public record Entry(String updateId, Response manifest, Response noUpdate) {}

  record Response(int status, MultiMap headers, Buffer body) {}

  private BaselineServer() {}

  /** The capture file of a run: what discovery received, for the baseline. */
  public static ObjectNode captureJson(List<Discovered> discovered) {
    ObjectNode root = Summary.JSON.createObjectNode();
    ArrayNode entries = root.putArray("entries");
    for (Discovered d : discovered) {
      ObjectNode e = entries.addObject();
      e.put("platform", d.key().platform());
      e.put("runtime_version", d.key().runtimeVersion());
      e.put("channel", d.key().channel());
      e.put("update_id", d.updateId());
      e.set("manifest", response(d.manifest()));
      if (d.noUpdate() != null) {
        e.set("no_update", response(d.noUpdate()));
      }
    }
    return root;
  }

  private static ObjectNode response(Captured c) {
    ObjectNode o = Summary.JSON.createObjectNode();
    o.put("status", c.status());
    ObjectNode h = o.putObject("headers");
    c.headers().forEach((k, v) -> {
      if (Captured.replayed(k)) {
        h.put(k.toLowerCase(Locale.ROOT), v);
      }
    });
    o.put("body_base64", Base64.getEncoder().encodeToString(c.body()));
    return o;
  }

  /** Reads a capture file into entries keyed {@code platform|runtime|channel}. */
  public static Map<String, Entry> readCapture(Path file) throws IOException {
    JsonNode root = Summary.JSON.readTree(Files.readAllBytes(file));
    Map<String, Entry> m = new HashMap<>();
    for (JsonNode e : root.path("entries")) {
      String key = e.path("platform").asText() + "|" + e.path("runtime_version").asText() + "|" + e.path("channel").asText();
      Response manifest = toResponse(e.path("manifest"));
      Response none = e.has("no_update") ? toResponse(e.path("no_update")) : manifest;
      m.put(key, new Entry(e.path("update_id").isTextual() ? e.path("update_id").asText() : null, manifest, none));
    }
    if (m.isEmpty()) {
      throw new IOException("capture file holds no entries: " + file);
    }
    return m;
  }

  private static Response toResponse(JsonNode n) {
    MultiMap h = HttpHeaders.headers();
    n.path("headers").properties().forEach(e -> h.add(e.getKey(), e.getValue().asText()));
    return new Response(n.path("status").asInt(200), h, Buffer.buffer(Base64.getDecoder().decode(n.path("body_base64").asText(""))));
  }

  /** Without a capture: a "no update" directive as a 2-part-sized multipart, like the platform notes' ceiling. */
  public static Map<String, Entry> defaultEntries() {
    String boundary = "updraft-baseline-boundary";
    String body = "--" + boundary + "\r\ncontent-type: application/json\r\ncontent-disposition: inline; name=\"directive\"\r\n\r\n"
        + "{\"type\":\"noUpdateAvailable\"}\r\n--" + boundary + "--\r\n";
    MultiMap h = HttpHeaders.headers()
        .add("content-type", "multipart/mixed; boundary=" + boundary)
        .add("expo-protocol-version", "1")
        .add("expo-sfv-version", "0")
        .add("cache-control", "private, max-age=0");
    Response r = new Response(200, h, Buffer.buffer(body.getBytes(StandardCharsets.UTF_8)));
    return Map.of("*", new Entry(null, r, r));
  }

  /** Deploys {@code instances} server verticles on {@code port} (0: any); the future holds the port. */
  public static Future<Integer> start(Vertx vertx, Map<String, Entry> entries, String host, int port, int instances) {
    int[] bound = new int[1];
    return vertx.deployVerticle(() -> new Server(entries, host, port, bound), new DeploymentOptions().setInstances(instances))
        .map(id -> bound[0]);
  }

  /** One event loop's server; instances share the port. */
  static final class Server extends VerticleBase {
    private final Map<String, Entry> entries;
    private final Entry fallback;
    private final String host;
    private final int port;
    private final int[] bound;

    Server(Map<String, Entry> entries, String host, int port, int[] bound) {
      this.entries = entries;
      this.fallback = entries.values().iterator().next();
      this.host = host;
      this.port = port;
      this.bound = bound;
    }

    @Override
    public Future<?> start() {
      HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port));
      server.requestHandler(this::handle);
      return server.listen().onSuccess(s -> {
        synchronized (bound) {
          bound[0] = s.actualPort();
        }
      });
    }

    private void handle(HttpServerRequest req) {
      String path = req.path();
      if ("/healthz".equals(path) || "/readyz".equals(path)) {
        req.response().end("ok");
        return;
      }
      MultiMap h = req.headers();
      Entry e = entries.get(h.get("expo-platform") + "|" + h.get("expo-runtime-version") + "|" + h.get("expo-channel-name"));
      if (e == null) {
        e = fallback;
      }
      Response r = Captured.answerFor(e.updateId(), h.get("expo-current-update-id"), e.manifest(), e.noUpdate());
      req.response().setStatusCode(r.status()).headers().addAll(r.headers());
      req.response().end(r.body());
    }
  }
}
