package dev.updraft.systemtests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.SourceTree;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Publish-to-served latency through the real publish API: a control plane and two edges on one embedded
 * Kafka (all in this JVM); each measured publish is an HTTP call to the publisher API, either
 * {@code POST /v1/apps/latency/updates} (a publish of the fixture export, files already stored: the
 * API's validation, the command, the render and signing of both platforms' manifests, its transaction and
 * read-back) or {@code POST /v1/apps/latency/rollbacks} (a republish of the first group). The clock
 * starts when the request is sent; then both edges are polled back to back as an Android device asking
 * for a signature until each serves the new update's id. Not a test (a {@code main}, never run by
 * {@code verify}); how to run it and its results: {@code docs/benchmarks/edge-publish-latency.md}.
 *
 * <p>Arguments (all optional): {@code publishes=100 warmup=10 mode=publish|rollback out=DIR} (default
 * {@code load/results/<UTC time>}). It prints a table and writes {@code publish-latency-<mode>-summary.json}
 * to {@code out}: the configuration, the machine's load average before and after, and per measure n, p50,
 * p90, p99 and max in milliseconds (nearest rank).
 */
public final class PublishLatencyBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String APP = "latency";
  private static final String BRANCH = "production";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private PublishLatencyBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>(Map.of("publishes", "100", "warmup", "10", "mode", "publish",
        "out", "load/results/" + DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now())));
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0 || !opt.containsKey(a.substring(0, eq))) {
        throw new IllegalArgumentException("unknown argument " + a + ": use publishes=N warmup=N mode=publish|rollback out=DIR");
      }
      opt.put(a.substring(0, eq), a.substring(eq + 1));
    }
    int publishes = Integer.parseInt(opt.get("publishes"));
    int warmup = Integer.parseInt(opt.get("warmup"));
    String mode = opt.get("mode");
    if (!mode.equals("publish") && !mode.equals("rollback")) {
      throw new IllegalArgumentException("mode must be publish or rollback: got " + mode);
    }
    Path out = Path.of(opt.get("out"));
    String loadBefore = loadAverage();
    Path dir = Files.createTempDirectory("publish-latency");
    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    Vertx vcp = Vertx.vertx();
    Vertx va = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    Vertx vb = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    try {
      String prefix = "latency.";
      ControlPlane cp = Services.controlPlane(vcp, kafka.bootstrapServers(), prefix, dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      JsonNode first = Publishing.appWithUpdate(server, APP, true, BRANCH); // app signed with the fixture key, through the CLI
      EdgeNode a = Services.readyEdge(va, kafka.bootstrapServers(), prefix, "edge-a", "checkins", "true");
      EdgeNode b = Services.readyEdge(vb, kafka.bootstrapServers(), prefix, "edge-b", "checkins", "true");
      ObjectNode publishBody = publishBody(Fixtures.update1());

      List<Double> api = new ArrayList<>();
      List<Double> bothSinceSent = new ArrayList<>();
      List<Double> bothSinceAnswered = new ArrayList<>();
      List<Double> firstSinceAnswered = new ArrayList<>();
      for (int i = 0; i < publishes + warmup; i++) {
        ObjectNode body = mode.equals("publish")
            ? publishBody.deepCopy().put("message", "latency " + i)
            : JSON.createObjectNode().put("branch", BRANCH).put("runtimeVersion", "1.0.0")
                .put("toGroupId", first.path("groupId").asText()).put("idempotencyKey", "latency-" + i);
        long sent = System.nanoTime();
        JsonNode group = post(server + "/v1/apps/" + APP + (mode.equals("publish") ? "/updates" : "/rollbacks"), body);
        long answered = System.nanoTime();
        String id = Publishing.updateIds(group).get(1); // iOS first, then Android
        long seenA = -1;
        long seenB = -1;
        while (seenA < 0 || seenB < 0) {
          if (seenA < 0 && serves(a.port(), id)) {
            seenA = System.nanoTime();
          }
          if (seenB < 0 && serves(b.port(), id)) {
            seenB = System.nanoTime();
          }
          if (System.nanoTime() - answered > 60_000_000_000L) {
            throw new IllegalStateException("publish " + i + " (update " + id + ") not served by both edges within 60 s");
          }
        }
        if (i >= warmup) {
          api.add((answered - sent) / 1e6);
          bothSinceSent.add((Math.max(seenA, seenB) - sent) / 1e6);
          bothSinceAnswered.add((Math.max(seenA, seenB) - answered) / 1e6);
          firstSinceAnswered.add((Math.min(seenA, seenB) - answered) / 1e6);
        }
      }
      Map<String, List<Double>> measures = new LinkedHashMap<>();
      measures.put("publish API call (request sent to answer)", api);
      measures.put("served by both edges, from the request", bothSinceSent);
      measures.put("served by both edges, from the answer", bothSinceAnswered);
      measures.put("served by the first edge, from the answer", firstSinceAnswered);
      System.out.println("| measure | n | p50 ms | p90 ms | p99 ms | max ms |");
      System.out.println("|---|---|---|---|---|---|");
      ObjectNode summary = JSON.createObjectNode();
      ObjectNode run = summary.putObject("run");
      run.put("benchmark", "publish-latency");
      run.put("commit", SourceTree.describe());
      run.put("mode", mode);
      run.put("endpoint", "POST /v1/apps/" + APP + (mode.equals("publish") ? "/updates" : "/rollbacks"));
      run.put("publishes", publishes);
      run.put("warmup", warmup);
      run.put("edges", 2);
      run.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      run.put("processors", Runtime.getRuntime().availableProcessors());
      run.put("loadAverageBefore", loadBefore);
      run.put("loadAverageAfter", loadAverage());
      run.put("finishedAt", Instant.now().toString());
      ObjectNode results = summary.putObject("results");
      for (Map.Entry<String, List<Double>> m : measures.entrySet()) {
        List<Double> s = new ArrayList<>(m.getValue());
        Collections.sort(s);
        System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %.1f |%n", m.getKey(), s.size(), pct(s, 50), pct(s, 90), pct(s, 99),
            s.get(s.size() - 1));
        results.putObject(m.getKey()).put("n", s.size()).put("p50_ms", round(pct(s, 50))).put("p90_ms", round(pct(s, 90)))
            .put("p99_ms", round(pct(s, 99))).put("max_ms", round(s.get(s.size() - 1)));
      }
      Files.createDirectories(out);
      Path file = out.resolve("publish-latency-" + mode + "-summary.json");
      Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary) + "\n");
      System.out.println("summary: " + file.toAbsolutePath());
      Services.await(a.close());
      Services.await(b.close());
      Services.await(cp.close());
    } finally {
      Services.await(va.close());
      Services.await(vb.close());
      Services.await(vcp.close());
      kafka.close();
      deleteTree(dir);
    }
  }

  /** Whether the edge on {@code port} serves update {@code id} to an Android device asking for a signature. */
  private static boolean serves(int port, String id) throws IOException, InterruptedException {
    HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/apps/" + APP + "/manifest"))
        .header("accept", "multipart/mixed,application/expo+json,application/json")
        .header("expo-platform", "android")
        .header("expo-protocol-version", "1")
        .header("expo-runtime-version", "1.0.0")
        .header("expo-channel-name", BRANCH)
        .header("eas-client-id", "latency-device")
        .header("expo-expect-signature", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"")
        .build();
    HttpResponse<String> a = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    return a.statusCode() == 200 && a.body().contains(id);
  }

  private static JsonNode post(String url, ObjectNode body) throws IOException, InterruptedException {
    HttpRequest r = HttpRequest.newBuilder(URI.create(url))
        .header("authorization", "Bearer " + Services.ADMIN)
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
        .build();
    HttpResponse<String> a = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() != 201) {
      throw new IllegalStateException("POST " + url + " answered " + a.statusCode() + ": " + a.body());
    }
    return JSON.readTree(a.body());
  }

  /** The publish body the CLI sends for an export folder whose files the control plane already stores. */
  static ObjectNode publishBody(Path dist) throws Exception {
    JsonNode metadata = JSON.readTree(dist.resolve("metadata.json").toFile());
    Set<String> paths = new LinkedHashSet<>();
    for (Map.Entry<String, JsonNode> p : metadata.get("fileMetadata").properties()) {
      paths.add(p.getValue().get("bundle").asText());
      for (JsonNode asset : p.getValue().get("assets")) {
        paths.add(asset.get("path").asText());
      }
    }
    ObjectNode body = JSON.createObjectNode();
    body.put("branch", BRANCH);
    body.put("runtimeVersion", "1.0.0");
    body.set("metadata", metadata);
    ObjectNode files = body.putObject("files");
    for (String p : paths) {
      byte[] bytes = Files.readAllBytes(dist.resolve(p));
      files.putObject(p).put("sha256", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes))).put("size", bytes.length);
    }
    if (Files.exists(dist.resolve("expoConfig.json"))) {
      body.set("expoConfig", JSON.readTree(dist.resolve("expoConfig.json").toFile()));
    }
    return body;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static double round(double ms) {
    return Math.round(ms * 10) / 10.0;
  }

  /** Nearest-rank percentile. */
  private static double pct(List<Double> sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
