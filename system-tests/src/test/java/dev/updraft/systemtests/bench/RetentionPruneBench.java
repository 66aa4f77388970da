package dev.updraft.systemtests.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.SourceTree;
import io.vertx.core.Vertx;
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
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Deleting at scale through the publisher API: a retention policy applied to a branch with {@code groups}
 * update groups (time of {@code PUT /v1/apps/bench/retention} keep N, which applies the policy before it
 * answers, and the events it wrote), then an asset prune over {@code objects} stored objects that no group
 * references (a dry run, then the prune itself). A control plane on local storage and an embedded Kafka, in
 * this JVM; the setup (the groups are republishes of the first, the objects small uploads) is not measured.
 * Not a test (a {@code main}, never run by {@code verify}); how to run it and its results:
 * {@code docs/benchmarks/retention-prune.md}.
 *
 * <p>Arguments (all optional): {@code groups=100000 keep=10 objects=100000 out=DIR} (default
 * {@code load/results/<UTC time>}). It prints the figures and writes {@code retention-prune-summary.json} to
 * {@code out}.
 */
public final class RetentionPruneBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String APP = "bench";
  private static final String BRANCH = "main";
  private static final String EVENTS = "updraft_control_events_appended_total";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private RetentionPruneBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>(Map.of("groups", "100000", "branches", "1", "keep", "10", "objects", "100000",
        "out", "load/results/" + DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HHmmss'Z'").withZone(ZoneOffset.UTC).format(Instant.now())));
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq < 0 || !opt.containsKey(a.substring(0, eq))) {
        throw new IllegalArgumentException("unknown argument " + a + ": use groups=N branches=N keep=N objects=N out=DIR");
      }
      opt.put(a.substring(0, eq), a.substring(eq + 1));
    }
    int groups = Integer.parseInt(opt.get("groups"));
    int branches = Integer.parseInt(opt.get("branches"));
    int keep = Integer.parseInt(opt.get("keep"));
    int objects = Integer.parseInt(opt.get("objects"));
    Path out = Path.of(opt.get("out"));
    String loadBefore = loadAverage();
    Path dir = Files.createTempDirectory("retention-prune");
    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    Vertx vertx = Vertx.vertx();
    try {
      ControlPlane cp = Services.controlPlane(vertx, kafka.bootstrapServers(), "bench.", dir.resolve("cp"));
      String server = "http://127.0.0.1:" + cp.port();
      String first = Publishing.appWithUpdate(server, APP, false, BRANCH).path("groupId").asText();
      long setupStart = System.nanoTime();
      for (int i = 1; i < groups; i++) {
        // round robin over the branches: each line keeps its newest groups in the control plane's window
        String branch = i % branches == 0 ? BRANCH : "b-" + (i % branches);
        call("POST", server + "/v1/apps/" + APP + "/rollbacks",
            JSON.createObjectNode().put("branch", branch).put("runtimeVersion", "1.0.0").put("toGroupId", first), 201);
        if (i % 10_000 == 0) {
          System.out.printf("setup: %d of %d groups%n", i, groups);
        }
      }
      System.out.printf("setup: %d groups in %.1f s%n", groups, (System.nanoTime() - setupStart) / 1e9);

      double eventsBefore = metric(server, EVENTS);
      long t0 = System.nanoTime();
      // one branch: its policy; several: the app's policy, for every branch
      ObjectNode policy = JSON.createObjectNode().put("keep", keep);
      if (branches == 1) {
        policy.put("branch", BRANCH);
      }
      call("PUT", server + "/v1/apps/" + APP + "/retention", policy, 200);
      double retentionMs = (System.nanoTime() - t0) / 1e6;
      double eventsWritten = metric(server, EVENTS) - eventsBefore - 1; // the retention.set event itself
      int left = countGroups(server);
      System.out.printf("retention: %d groups, keep %d: %.1f ms, %d updates.deleted events, %d groups left%n",
          groups, keep, retentionMs, (long) eventsWritten, left);

      long uploadStart = System.nanoTime();
      upload(server, objects);
      System.out.printf("setup: %d objects in %.1f s%n", objects, (System.nanoTime() - uploadStart) / 1e9);
      Thread.sleep(2_000); // every object is then older than the 1 s grace
      long t1 = System.nanoTime();
      JsonNode dry = call("POST", server + "/v1/apps/" + APP + "/assets/prune", JSON.createObjectNode().put("dryRun", true).put("grace", "1s"), 200);
      double dryMs = (System.nanoTime() - t1) / 1e6;
      long t2 = System.nanoTime();
      JsonNode pruned = call("POST", server + "/v1/apps/" + APP + "/assets/prune", JSON.createObjectNode().put("dryRun", false).put("grace", "1s"), 200);
      double pruneMs = (System.nanoTime() - t2) / 1e6;
      System.out.printf("prune: scanned %d, deleted %d (%d bytes): dry run %.1f ms, prune %.1f ms%n",
          pruned.path("scanned").asInt(), pruned.path("count").asInt(), pruned.path("bytes").asLong(), dryMs, pruneMs);

      ObjectNode summary = JSON.createObjectNode();
      ObjectNode run = summary.putObject("run");
      run.put("benchmark", "retention-prune");
      run.put("commit", SourceTree.describe());
      run.put("groups", groups);
      run.put("branches", branches);
      run.put("keep", keep);
      run.put("objects", objects);
      run.put("storage", "local");
      run.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      run.put("processors", Runtime.getRuntime().availableProcessors());
      run.put("loadAverageBefore", loadBefore);
      run.put("loadAverageAfter", loadAverage());
      run.put("finishedAt", Instant.now().toString());
      ObjectNode results = summary.putObject("results");
      results.putObject("retention").put("ms", round(retentionMs)).put("eventsWritten", (long) eventsWritten).put("groupsLeft", left);
      results.putObject("pruneDryRun").put("ms", round(dryMs)).put("scanned", dry.path("scanned").asInt()).put("listed", dry.path("count").asInt());
      results.putObject("prune").put("ms", round(pruneMs)).put("scanned", pruned.path("scanned").asInt())
          .put("deleted", pruned.path("count").asInt()).put("bytes", pruned.path("bytes").asLong());
      Files.createDirectories(out);
      Path file = out.resolve("retention-prune-summary.json");
      Files.writeString(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(summary) + "\n");
      System.out.println("summary: " + file.toAbsolutePath());
      Services.await(cp.close());
    } finally {
      Services.await(vertx.close());
      kafka.close();
      deleteTree(dir);
    }
  }

  /** Stores {@code n} small distinct objects no group references, four uploads at a time. */
  private static void upload(String server, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> pending = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        byte[] bytes = ("orphan object " + i).getBytes(StandardCharsets.UTF_8);
        pending.add(pool.submit(() -> {
          String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
          HttpRequest r = HttpRequest.newBuilder(URI.create(server + "/v1/apps/" + APP + "/assets/" + sha))
              .header("authorization", "Bearer " + Services.ADMIN)
              .header("content-type", "application/octet-stream")
              .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes))
              .build();
          int status = HTTP.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
          if (status != 201 && status != 200) {
            throw new IllegalStateException("upload of " + sha + " answered " + status);
          }
          return null;
        }));
        if (pending.size() >= 1_000) {
          for (Future<?> f : pending) {
            f.get();
          }
          pending.clear();
        }
      }
      for (Future<?> f : pending) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static JsonNode call(String method, String url, ObjectNode body, int expected) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMinutes(30)).header("authorization", "Bearer " + Services.ADMIN);
    if (body != null) {
      b.header("content-type", "application/json");
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.toString()));
    HttpResponse<String> a = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (a.statusCode() != expected) {
      throw new IllegalStateException(method + " " + url + " answered " + a.statusCode() + ": " + a.body());
    }
    return JSON.readTree(a.body());
  }

  /** The groups {@code GET /v1/apps/bench/updates} lists, page by page. */
  private static int countGroups(String server) throws IOException, InterruptedException {
    int n = 0;
    String cursor = null;
    for (int page = 0; page < 100_000; page++) {
      JsonNode a = call("GET", server + "/v1/apps/" + APP + "/updates?limit=200" + (cursor == null ? "" : "&cursor=" + cursor), null, 200);
      n += a.path("items").size();
      JsonNode next = a.path("nextCursor");
      if (next.isMissingNode() || next.isNull()) {
        return n;
      }
      cursor = next.asText();
    }
    throw new IllegalStateException("more than 100,000 pages of groups");
  }

  /** One sample of the control plane's {@code /metrics}. */
  private static double metric(String server, String series) throws IOException, InterruptedException {
    String text = HTTP.send(HttpRequest.newBuilder(URI.create(server + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    for (String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new IllegalStateException("no " + series + " in " + server + "/metrics");
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

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
