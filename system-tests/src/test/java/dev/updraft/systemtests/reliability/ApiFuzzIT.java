package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Malformed input on every operation of the OpenAPI document a real control plane serves (with the insights
 * extension, and an ingester projecting the history into a real PostgreSQL, so that the reads that ask PostgreSQL
 * really do): a NUL ({@code %00}) in each path and query parameter, bodies that are not one JSON object, and each
 * body property (and each property of an object property) given the wrong type or a text holding a NUL. Every
 * answer is below 500, and every refusal a JSON error ({@link Api#send} also holds it to the document). A NUL in a
 * text is refused, never accepted: PostgreSQL's text cannot hold one, and an event carrying one once stopped the
 * history projection. After the sweep the projection has written everything and failed nothing.
 */
@ExtendWith(RealInfrastructure.class)
class ApiFuzzIT {
  private static final String APP = "fuzz";
  /** Wrong values for a property of any type; the texts among them are wrong only for some properties. */
  private static final List<String> WRONG = List.of("123", "-1", "1.5", "1e308", "99999999999999999999", "\"\"", "\"x\"",
      "\"" + "x".repeat(5000) + "\"", "[]", "[1,\"x\"]", "{}", "{\"a\":1}", "null", "true");
  /** Texts holding a NUL: as a JSON escape and as the raw character. */
  private static final List<String> NUL_TEXTS = List.of("\"a\\u0000b\"", "\"a\u0000b\"");
  private static final List<String> NOT_AN_OBJECT = List.of("", "not json", "[]", "null", "123", "\"s\"", "{\"x\":", "{} {}",
      "[".repeat(2000));

  /**
   * One operation of the document: its query parameters, its JSON body's properties (null: no JSON body) and whether
   * the body is required (an optional one may be left empty).
   */
  record Op(String method, String path, List<String> query, Map<String, Map<String, Object>> properties, boolean bodyRequired) {
    String key() {
      return method + " " + path;
    }
  }

  @Test
  void malformedInputOnEveryOperationIsA4xxWithAJsonErrorAndStopsNothing(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    String pg = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
    ControlPlane cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir, pg,
        "auth-failure-limit", "0");
    TelemetryIngester ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), pg);
    try {
      String base = "http://127.0.0.1:" + cp.port();
      String groupId = Publishing.appWithUpdate(base, APP, false, "main").path("groupId").asText();
      Api.Resp token = Api.post(base + "/v1/apps/" + APP + "/tokens", Services.ADMIN, "{\"role\":\"read\"}");
      assertThat(token.status()).as(token.toString()).isEqualTo(201);
      Map<String, String> valid = new LinkedHashMap<>();
      valid.put("app", APP);
      valid.put("groupId", groupId);
      valid.put("tokenId", token.json().path("tokenId").asText());
      valid.put("keyId", "main");
      valid.put("channel", "main");
      valid.put("branch", "main");
      valid.put("runtimeVersion", "1.0.0");
      valid.put("clientId", "0b5c7a2e-52f4-4e4b-9a57-8d1a4cf5a1b2");
      valid.put("sha256", "0".repeat(64));
      valid.put("file", "app.js");

      Api.Resp spec = Api.get(base + "/v1/openapi.yaml", null);
      assertThat(spec.status()).isEqualTo(200);
      List<Op> ops = operations(spec.text());
      assertThat(ops).as("operations in the document").hasSizeGreaterThanOrEqualTo(50);

      List<String> problems = new ArrayList<>();
      int sent = 0;
      for (Op o : ops) {
        // a NUL in each path parameter and each query parameter: refused before any route runs
        List<String> params = pathParams(o.path());
        for (String p : params) {
          Map<String, String> one = new LinkedHashMap<>(valid);
          one.put(p, "a%00b");
          sent++;
          expectRefused(problems, o, "path parameter " + p + " with %00", Api.send(o.method(), base + fill(o.path(), one), Services.ADMIN,
              o.properties() == null ? null : "{}", Map.of()), "nul-character");
        }
        for (String q : o.query()) {
          sent++;
          expectRefused(problems, o, "query " + q + " with %00", Api.send(o.method(), base + fill(o.path(), valid) + "?" + q + "=%00",
              Services.ADMIN, o.properties() == null ? null : "{}", Map.of()), "nul-character");
        }
        if (o.properties() == null || o.method().equals("DELETE")) {
          continue;
        }
        String url = base + fill(o.path(), valid);
        for (String body : NOT_AN_OBJECT) {
          if (body.isEmpty() && !o.bodyRequired()) {
            continue; // an optional body left out
          }
          sent++;
          expectRefused(problems, o, "body " + abbreviate(body), Api.send(o.method(), url, Services.ADMIN, body, Map.of()), null);
        }
        for (Map.Entry<String, Map<String, Object>> prop : o.properties().entrySet()) {
          for (String v : WRONG) {
            sent++;
            expectNo5xx(problems, o, prop.getKey() + "=" + abbreviate(v),
                Api.send(o.method(), url, Services.ADMIN, "{\"" + prop.getKey() + "\":" + v + "}", Map.of()));
          }
          if ("string".equals(prop.getValue().get("type"))) {
            for (String v : NUL_TEXTS) {
              sent++;
              expectRefused(problems, o, prop.getKey() + " holding a NUL",
                  Api.send(o.method(), url, Services.ADMIN, "{\"" + prop.getKey() + "\":" + v + "}", Map.of()), null);
            }
          }
          if (prop.getValue().get("properties") instanceof Map<?, ?> inner) {
            for (Object name : inner.keySet()) {
              for (String v : WRONG) {
                sent++;
                expectNo5xx(problems, o, prop.getKey() + "." + name + "=" + abbreviate(v),
                    Api.send(o.method(), url, Services.ADMIN, "{\"" + prop.getKey() + "\":{\"" + name + "\":" + v + "}}", Map.of()));
              }
            }
          }
        }
      }
      // a path that is not percent-encoding: the router refuses it before any route; a JSON error all the same
      for (String target : List.of("/v1/apps/%ZZ", "/v1/apps/" + APP + "/updates/%G1", "/console/%ZZ")) {
        try (RawHttp raw = new RawHttp(cp.port(), 10_000)) {
          RawHttp.Response r = raw.exchange(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Services.ADMIN
              + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
          sent++;
          assertThat(r).as(target).isNotNull();
          assertThat(r.status()).as("%s: %s", target, r.text()).isEqualTo(400);
          assertThat(r.header("content-type")).as(target).startsWith("application/json");
          assertThat(CliRun.JSON.readTree(r.body()).path("error").path("message").asText()).as(target).contains("percent-encoding");
        }
      }
      assertThat(problems).as("answers to malformed input that were a 5xx, accepted a NUL or were not a JSON error").isEmpty();

      // nothing reached PostgreSQL that it could not store: a change made after the sweep is in the projected audit
      // (a projection stopped by an event it cannot write would never show it), and no history write failed
      Api.Resp last = Api.send("PUT", base + "/v1/apps/" + APP + "/channels/after-sweep", Services.ADMIN, "{\"branch\":\"main\"}", Map.of());
      assertThat(last.status()).as(last.toString()).isEqualTo(200);
      Services.until(() -> "the change after the sweep in the audit: " + Api.get(base + "/v1/apps/" + APP + "/audit?limit=1", Services.ADMIN),
          () -> Api.get(base + "/v1/apps/" + APP + "/audit?limit=1", Services.ADMIN).json().path("items").path(0).path("summary").asText()
              .contains("after-sweep"), Duration.ofSeconds(60));
      assertThat(Metrics.value(ingester.scrape(), "updraft_history_pg_failures_total")).as("history writes that failed").isZero();
      Services.until(() -> "history lag back to 0: " + Metrics.value(ingester.scrape(), "updraft_history_lag_records"),
          () -> Metrics.value(ingester.scrape(), "updraft_history_lag_records") == 0.0, Duration.ofSeconds(10));
      System.out.printf("api fuzz: %d of the description's %d operations (HEAD ones answer as their GET), %d malformed requests, no 5xx,"
          + " every NUL refused%n", ops.size(), allOperations(spec.text()), sent);
    } finally {
      Services.await(cp.close());
      Services.await(ingester.close());
      Services.await(vertx.close());
    }
  }

  private static void expectNo5xx(List<String> problems, Op o, String what, Api.Resp r) {
    if (r.status() < 0 || r.status() >= 500) {
      problems.add(o.key() + " " + what + ": " + r);
    } else if (r.status() >= 400 && code(r) == null) {
      problems.add(o.key() + " " + what + ": not a JSON error: " + r);
    }
  }

  private static void expectRefused(List<String> problems, Op o, String what, Api.Resp r, String code) {
    expectNo5xx(problems, o, what, r);
    if (r.status() < 400 || r.status() >= 500) {
      problems.add(o.key() + " " + what + ": accepted: " + r);
    } else if (code != null && !code.equals(code(r))) {
      problems.add(o.key() + " " + what + ": code " + code(r) + ", not " + code + ": " + r);
    }
  }

  /** The answer's error code, or null when its body is not a JSON error. */
  private static String code(Api.Resp r) {
    try {
      String c = r.errorCode();
      return c == null || c.isEmpty() ? null : c;
    } catch (AssertionError notJson) {
      return null;
    }
  }

  private static String abbreviate(String v) {
    return v.length() > 24 ? v.substring(0, 24) + "… (" + v.length() + " chars)" : v;
  }

  private static List<String> pathParams(String path) {
    List<String> out = new ArrayList<>();
    for (String seg : path.split("/")) {
      if (seg.startsWith("{") && seg.endsWith("}")) {
        out.add(seg.substring(1, seg.length() - 1));
      }
    }
    return out;
  }

  private static String fill(String path, Map<String, String> values) {
    String out = path;
    for (Map.Entry<String, String> v : values.entrySet()) {
      out = out.replace("{" + v.getKey() + "}", v.getValue());
    }
    return out;
  }

  /** Every operation of the description, HEAD ones too: one per method of each path. */
  @SuppressWarnings("unchecked")
  static int allOperations(String yaml) {
    Map<String, Object> doc = new Yaml().load(yaml);
    int n = 0;
    for (Object item : ((Map<String, Object>) doc.get("paths")).values()) {
      for (String k : ((Map<String, Object>) item).keySet()) {
        n += List.of("get", "put", "post", "delete", "patch", "head", "options", "trace").contains(k) ? 1 : 0;
      }
    }
    return n;
  }

  /** The document's operations with their query parameters and JSON body properties ($refs resolved one level). */
  @SuppressWarnings("unchecked")
  static List<Op> operations(String yaml) {
    Map<String, Object> doc = new Yaml().load(yaml);
    Map<String, Object> components = (Map<String, Object>) doc.get("components");
    List<Op> ops = new ArrayList<>();
    for (Map.Entry<String, Object> p : ((Map<String, Object>) doc.get("paths")).entrySet()) {
      Map<String, Object> item = (Map<String, Object>) p.getValue();
      for (Map.Entry<String, Object> m : item.entrySet()) {
        if (m.getKey().equals("parameters") || m.getKey().equals("head")) {
          continue;
        }
        Map<String, Object> op = (Map<String, Object>) m.getValue();
        List<String> query = new ArrayList<>();
        for (Object param : (List<Object>) op.getOrDefault("parameters", List.of())) {
          Map<String, Object> pm = resolve(components, (Map<String, Object>) param);
          if ("query".equals(pm.get("in"))) {
            query.add((String) pm.get("name"));
          }
        }
        Map<String, Map<String, Object>> props = null;
        Map<String, Object> body = (Map<String, Object>) op.get("requestBody");
        if (body != null && ((Map<String, Object>) body.get("content")).containsKey("application/json")) {
          Map<String, Object> json = (Map<String, Object>) ((Map<String, Object>) body.get("content")).get("application/json");
          Map<String, Object> schema = resolve(components, (Map<String, Object>) json.get("schema"));
          props = new LinkedHashMap<>();
          for (Map.Entry<String, Object> pr : ((Map<String, Object>) schema.getOrDefault("properties", Map.of())).entrySet()) {
            props.put(pr.getKey(), resolve(components, (Map<String, Object>) pr.getValue()));
          }
        }
        ops.add(new Op(m.getKey().toUpperCase(Locale.ROOT), p.getKey(), query, props, body != null && Boolean.TRUE.equals(body.get("required"))));
      }
    }
    return ops;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> resolve(Map<String, Object> components, Map<String, Object> node) {
    Object ref = node == null ? null : node.get("$ref");
    if (!(ref instanceof String s) || !s.startsWith("#/components/")) {
      return node == null ? Map.of() : node;
    }
    String[] parts = s.substring("#/components/".length()).split("/");
    return (Map<String, Object>) ((Map<String, Object>) components.get(parts[0])).get(parts[1]);
  }
}
