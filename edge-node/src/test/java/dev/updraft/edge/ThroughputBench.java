package dev.updraft.edge;

import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Saturation throughput of the edge next to a trivial Vert.x server returning the same bytes, in one run
 * on loopback, measured with {@code wrk}. Not a test (a {@code main}); how to run it and the results:
 * {@code docs/benchmarks/archive/edge-throughput.md}.
 *
 * <p>Arguments (all optional): {@code seconds=15 connections=64 rounds=3 checkins=true loops=2 warmup=10
 * scenarios=manifest,noUpdate servers=trivial,edge}. Each scenario runs {@code rounds} times per server,
 * alternating which server goes first, after an unrecorded warm-up of {@code warmup} seconds each.
 */
public final class ThroughputBench {
  private static final Pattern RPS = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern P50 = Pattern.compile("\\s50%\\s+([0-9.]+\\w+)");
  private static final Pattern P99 = Pattern.compile("\\s99%\\s+([0-9.]+\\w+)");
  private static final Pattern REQUESTS = Pattern.compile("([0-9]+) requests in");

  private ThroughputBench() {}

  /** A trivial server: per path, fixed status, headers and body. */
  static final class Trivial extends VerticleBase {
    private final int port;
    private final Map<String, EdgeHttp.Response> byPath;

    Trivial(int port, Map<String, EdgeHttp.Response> byPath) {
      this.port = port;
      this.byPath = byPath;
    }

    @Override
    public Future<?> start() {
      Map<String, Buffer> bodies = new LinkedHashMap<>();
      byPath.forEach((p, r) -> bodies.put(p, Buffer.buffer(r.body())));
      return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port))
          .requestHandler(req -> {
            EdgeHttp.Response r = byPath.get(req.path());
            req.response()
                .putHeader("content-type", r.header("content-type"))
                .putHeader("expo-protocol-version", r.header("expo-protocol-version"))
                .putHeader("expo-sfv-version", r.header("expo-sfv-version"))
                .putHeader("cache-control", r.header("cache-control"))
                .end(bodies.get(req.path()));
          })
          .listen();
    }
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> a = new LinkedHashMap<>(Map.of("seconds", "15", "connections", "64", "rounds", "3",
        "checkins", "true", "loops", "2", "scenarios", "manifest,noUpdate", "servers", "trivial,edge", "warmup", "10"));
    // summary=FILE: the run's figures as JSON (the arguments, every round, the means), for docs/benchmarks/
    for (String arg : args) {
      String[] kv = arg.split("=", 2);
      a.put(kv[0], kv[1]);
    }
    Path dir = Files.createTempDirectory("edge-bench");
    EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, 0);
    Vertx edgeVertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)
        .setEventLoopPoolSize(Integer.parseInt(a.get("loops"))));
    Vertx trivialVertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)
        .setEventLoopPoolSize(Integer.parseInt(a.get("loops"))));
    try (TestLog log = new TestLog(kafka.bootstrapServers(), "bench.")) {
      TestSigner signer = TestSigner.fixture();
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(60);
      String noUpdate = "{\"type\":\"noUpdateAvailable\"}";
      log.publish("bench", new EventPayload.AppCreated("Bench"));
      log.publish("bench", new EventPayload.SigningKeyRegistered("main", Files.readString(Fixtures.certificatePem()), "x",
          noUpdate, signer.signatureHeader(noUpdate), List.of()));
      UpdateGroup g1 = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, signer, null);
      UpdateGroup g2 = FixtureManifests.group("production", "1.0.0", Fixtures.update2(), t.plusSeconds(1), signer, null);
      log.publish("bench", new EventPayload.UpdatePublished(g1));
      log.publish("bench", new EventPayload.UpdatePublished(g2));

      EdgeNode edge = Edges.startReady(edgeVertx, log, "bench-edge", "checkins", a.get("checkins"),
          "event-loops", a.get("loops"), "checkin-buffer", "100000");
      EdgeHttp http = new EdgeHttp(edge.port());
      Map<String, String[]> scenarios = new LinkedHashMap<>();
      scenarios.put("manifest", Device.ios().client("bench-client").current(g1.platform("ios").updateId())
          .embedded(g1.platform("ios").updateId()).expectSignature().headers());
      scenarios.put("noUpdate", Device.ios().client("bench-client").current(g2.platform("ios").updateId())
          .embedded(g1.platform("ios").updateId()).expectSignature().headers());
      // the trivial server answers /apps/bench/manifest-<scenario> with the edge's exact answer to that scenario
      Map<String, EdgeHttp.Response> trivialPaths = new LinkedHashMap<>();
      for (Map.Entry<String, String[]> s : scenarios.entrySet()) {
        EdgeHttp.Response r = http.get("/apps/bench/manifest", s.getValue());
        if (r.status() != 200) {
          throw new IllegalStateException("edge answered " + r);
        }
        trivialPaths.put("/apps/bench/manifest-" + s.getKey(), r);
        System.out.printf("scenario %s: %d bytes, content-type %s%n", s.getKey(), r.body().length, r.header("content-type"));
      }
      int trivialPort = dev.updraft.embedded.Ports.freePort();
      Edges.await(trivialVertx.deployVerticle(() -> new Trivial(trivialPort, trivialPaths),
          new DeploymentOptions().setInstances(Integer.parseInt(a.get("loops")))));

      // warm-up, not recorded: JIT, Kafka producer and broker for the edge; JIT for the trivial server
      Map<String, String> warm = new LinkedHashMap<>(a);
      warm.put("seconds", a.get("warmup"));
      for (String scenario : a.get("scenarios").split(",")) {
        wrk("http://127.0.0.1:" + trivialPort + "/apps/bench/manifest-" + scenario, scenarios.get(scenario), warm);
        wrk("http://127.0.0.1:" + edge.port() + "/apps/bench/manifest", scenarios.get(scenario), warm);
      }

      List<String> rows = new ArrayList<>();
      com.fasterxml.jackson.databind.node.ObjectNode json = com.fasterxml.jackson.databind.json.JsonMapper.builder().build().createObjectNode();
      json.put("bench", "edge-throughput");
      json.put("startedAt", Instant.now().toString());
      json.put("java", System.getProperty("java.version"));
      json.put("commit", dev.updraft.testing.SourceTree.describe());
      json.put("cores", Runtime.getRuntime().availableProcessors());
      com.fasterxml.jackson.databind.node.ObjectNode argsJson = json.putObject("args");
      a.forEach(argsJson::put);
      com.fasterxml.jackson.databind.node.ArrayNode roundsJson = json.putArray("rounds");
      com.fasterxml.jackson.databind.node.ObjectNode meansJson = json.putObject("means");
      for (String scenario : a.get("scenarios").split(",")) {
        String[] headers = scenarios.get(scenario);
        List<Double> edgeRps = new ArrayList<>();
        List<Double> trivialRps = new ArrayList<>();
        List<Double> edgeCpu = new ArrayList<>();
        List<Double> trivialCpu = new ArrayList<>();
        for (int round = 1; round <= Integer.parseInt(a.get("rounds")); round++) {
          String edgeUrl = "http://127.0.0.1:" + edge.port() + "/apps/bench/manifest";
          String trivialUrl = "http://127.0.0.1:" + trivialPort + "/apps/bench/manifest-" + scenario;
          boolean edgeFirst = round % 2 == 0;
          for (int k = 0; k < 2; k++) {
            boolean isEdge = (k == 0) == edgeFirst;
            if (!a.get("servers").contains(isEdge ? "edge" : "trivial")) {
              continue;
            }
            Map<Long, Object[]> before = cpu();
            String[] result = wrk(isEdge ? edgeUrl : trivialUrl, headers, a);
            long[] used = cpuDelta(before, cpu());
            double rps = Double.parseDouble(result[0]);
            double requests = Double.parseDouble(result[3]);
            (isEdge ? edgeRps : trivialRps).add(rps);
            (isEdge ? edgeCpu : trivialCpu).add(used[0] / requests / 1000.0);
            String row = String.format("| %s | %d | %s | %.0f | %s | %s | %.1f | %.1f |", scenario, round,
                isEdge ? "edge" : "trivial", rps, result[1], result[2], used[0] / requests / 1000.0,
                used[1] / requests / 1000.0);
            rows.add(row);
            System.out.println(row);
            roundsJson.addObject().put("scenario", scenario).put("round", round).put("server", isEdge ? "edge" : "trivial")
                .put("rps", rps).put("p50", result[1]).put("p99", result[2]).put("requests", (long) requests)
                .put("serverCpuUsPerRequest", used[0] / requests / 1000.0).put("otherCpuUsPerRequest", used[1] / requests / 1000.0);
          }
        }
        double e = edgeRps.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double tr = trivialRps.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double ec = edgeCpu.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        double tc = trivialCpu.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        String summary = String.format("| %s | mean | edge / trivial | %.0f / %.0f = %.1f %% | | | %.1f / %.1f = %.1f %% | |",
            scenario, e, tr, tr == 0 ? 0 : 100 * e / tr, ec, tc, ec == 0 ? 0 : 100 * tc / ec);
        rows.add(summary);
        System.out.println(summary);
        meansJson.putObject(scenario).put("edgeRps", e).put("trivialRps", tr).put("edgeOverTrivial", tr == 0 ? 0 : e / tr)
            .put("edgeCpuUsPerRequest", ec).put("trivialCpuUsPerRequest", tc);
      }
      String metrics = http.get("/metrics").text();
      System.out.println();
      System.out.println("| scenario | round | server | req/s | p50 | p99 | server CPU µs/req | other CPU µs/req |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      rows.forEach(System.out::println);
      System.out.println();
      for (String line : metrics.split("\n")) {
        if (line.startsWith("updraft_edge_checkins") || line.startsWith("updraft_edge_requests_total")) {
          System.out.println(line);
        }
      }
      if (a.containsKey("summary")) {
        Files.writeString(Path.of(a.get("summary")), json.toPrettyString() + "\n");
        System.out.println("summary written to " + a.get("summary"));
      }
      Edges.await(edge.close());
    } finally {
      Edges.await(trivialVertx.close());
      Edges.await(edgeVertx.close());
      kafka.close();
      deleteTree(dir);
    }
  }

  /** Removes the broker's temp dir. */
  static void deleteTree(Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<Path> s = Files.walk(dir)) {
      s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** CPU nanoseconds per live thread, by id, with the thread's name. */
  private static Map<Long, Object[]> cpu() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    Map<Long, Object[]> out = new java.util.HashMap<>();
    for (java.lang.management.ThreadInfo i : mx.getThreadInfo(mx.getAllThreadIds())) {
      if (i != null) {
        out.put(i.getThreadId(), new Object[] {i.getThreadName(), mx.getThreadCpuTime(i.getThreadId())});
      }
    }
    return out;
  }

  /**
   * CPU used between two snapshots, split into the server's own threads (event loops, the check-in sender
   * and its producer's network thread, the log reader) and everything else (the in-process Kafka broker).
   */
  private static long[] cpuDelta(Map<Long, Object[]> before, Map<Long, Object[]> after) {
    long server = 0;
    long other = 0;
    for (Map.Entry<Long, Object[]> e : after.entrySet()) {
      String name = (String) e.getValue()[0];
      long now = (Long) e.getValue()[1];
      Object[] was = before.get(e.getKey());
      long d = now - (was == null ? 0 : (Long) was[1]);
      if (Boolean.getBoolean("bench.threads") && d > 50_000_000L) {
        System.out.printf("  thread %-60s %6d ms%n", name, d / 1_000_000);
      }
      if (name.startsWith("vert.x-eventloop") || name.startsWith("updraft-edge")
          || name.startsWith("kafka-producer-network-thread | updraft-edge")) {
        server += d;
      } else if (!name.equals("main")) {
        other += d;
      }
    }
    return new long[] {server, other};
  }

  /** Runs wrk; returns requests/s, p50, p99, requests. */
  private static String[] wrk(String url, String[] headers, Map<String, String> a) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("wrk", "-t1", "-c" + a.get("connections"), "-d" + a.get("seconds") + "s",
        "--latency"));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      cmd.add("-H");
      cmd.add(headers[i] + ": " + headers[i + 1]);
    }
    cmd.add(url);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    StringBuilder out = new StringBuilder();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        out.append(line).append('\n');
      }
    }
    p.waitFor();
    String text = out.toString();
    if (text.contains("Non-2xx")) {
      throw new IllegalStateException("wrk saw errors:\n" + text);
    }
    return new String[] {find(RPS, text), find(P50, text), find(P99, text), find(REQUESTS, text)};
  }

  private static String find(Pattern p, String text) {
    Matcher m = p.matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("wrk output lacks " + p + ":\n" + text);
    }
    return m.group(1);
  }
}
