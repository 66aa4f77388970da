package dev.updraft.systemtests.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.cli.Cli;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Topics;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.openapi.OpenApiContract;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.StrictMultipartParser;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The whole telemetry path, each part real and started through its public entry point: a control plane
 * with the insights extension (HTTP API, guard), one edge node, and a telemetry ingester on a Vert.x of
 * its own (so it can be killed without touching the rest), on one topic prefix and one PostgreSQL
 * database. Also the test's hands: device requests to the edge, calls to the API and the CLI, and waits
 * that poll with a deadline.
 */
final class TelemetryStack implements AutoCloseable {
  static final String ADMIN = "telemetry-e2e-admin-token-0123";
  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration TIMEOUT = Duration.ofSeconds(90);
  static final String RUNTIME = "1.0.0";

  private final String kafka;
  private final String prefix;
  private final String postgresUrl;
  private final String jdbcUrl;
  private final Vertx vertx;
  private final ControlPlane cp;
  private EdgeNode edge;
  /** Every service with the defaults a production user runs: only addresses, identities and credentials given. */
  private boolean defaults;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private Vertx ingestVertx;
  private TelemetryIngester ingester;
  private int ingesters;
  private final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();

  private TelemetryStack(String kafka, String prefix, String postgresUrl, String jdbcUrl, Vertx vertx, ControlPlane cp, EdgeNode edge) {
    this.kafka = kafka;
    this.prefix = prefix;
    this.postgresUrl = postgresUrl;
    this.jdbcUrl = jdbcUrl;
    this.vertx = vertx;
    this.cp = cp;
    this.edge = edge;
  }

  /**
   * Starts the control plane (with insights, the guard every {@code guardInterval}), an ingester and an
   * edge, and waits until the edge is ready.
   *
   * @param pgHostPortDb {@code host:port/database} of a PostgreSQL with user {@code pgUser} and no password
   */
  static TelemetryStack start(String kafka, String prefix, String pgHostPortDb, String pgUser, Path dir, Duration guardInterval) {
    String postgresUrl = "postgresql://" + pgUser + "@" + pgHostPortDb;
    String jdbcUrl = "jdbc:postgresql://" + pgHostPortDb + "?user=" + pgUser;
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = null;
    EdgeNode edge = null;
    try {
      Map<String, String> flags = new HashMap<>();
      flags.put("kafka-bootstrap", kafka);
      flags.put("topic-prefix", prefix);
      flags.put("control-port", "0");
      flags.put("bind", "127.0.0.1");
      flags.put("admin-token", ADMIN);
      flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
      flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
      flags.put("data-dir", dir.toString());
      flags.put("postgres-url", postgresUrl);
      flags.put("guard-interval", guardInterval.toMillis() + "ms");
      flags.put("asset-encoding", "fast"); // low levels: no test here measures compression
      // the same wiring as `updraft control-plane` (launcher ServiceCommand)
      Settings s = Settings.of(flags, Map.of());
      cp = await(ControlPlane.start(vertx, ControlPlaneConfig.from(s, InsightsExtension.FLAGS), List.of(InsightsExtension.from(s))));
      Map<String, String> ed = new HashMap<>();
      ed.put("kafka-bootstrap", kafka);
      ed.put("topic-prefix", prefix);
      ed.put("edge-port", "0");
      ed.put("bind", "127.0.0.1");
      ed.put("edge-id", "edge-e2e");
      ed.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
      edge = await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
      TelemetryStack stack = new TelemetryStack(kafka, prefix, postgresUrl, jdbcUrl, vertx, cp, edge);
      stack.startIngester();
      EdgeNode e = edge;
      poll(e::ready, () -> "the edge did not catch up with the event log");
      return stack;
    } catch (RuntimeException | Error err) {
      if (edge != null) {
        await(edge.close());
      }
      if (cp != null) {
        await(cp.close());
      }
      await(vertx.close());
      throw err;
    }
  }

  /**
   * The control plane (with insights) and an ingester with nothing but addresses, identities and credentials
   * given: every other setting is the default a production user runs (best asset encodings, the guard's interval,
   * the ingester's batch size and linger). No edge yet: {@link #startEdgeWithDefaults} starts one once there is
   * something for its warm-up to exercise.
   */
  static TelemetryStack startWithDefaults(String kafka, String prefix, String pgHostPortDb, String pgUser, Path dir) {
    String postgresUrl = "postgresql://" + pgUser + "@" + pgHostPortDb;
    String jdbcUrl = "jdbc:postgresql://" + pgHostPortDb + "?user=" + pgUser;
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = null;
    try {
      Map<String, String> flags = new HashMap<>();
      flags.put("kafka-bootstrap", kafka);
      flags.put("topic-prefix", prefix);
      flags.put("control-port", "0");
      flags.put("bind", "127.0.0.1");
      flags.put("admin-token", ADMIN);
      flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
      flags.put("data-dir", dir.toString());
      flags.put("postgres-url", postgresUrl);
      Settings s = Settings.of(flags, Map.of());
      cp = await(ControlPlane.start(vertx, ControlPlaneConfig.from(s, InsightsExtension.FLAGS), List.of(InsightsExtension.from(s))));
      TelemetryStack stack = new TelemetryStack(kafka, prefix, postgresUrl, jdbcUrl, vertx, cp, null);
      stack.defaults = true;
      stack.startIngester();
      return stack;
    } catch (RuntimeException | Error err) {
      if (cp != null) {
        await(cp.close());
      }
      await(vertx.close());
      throw err;
    }
  }

  /** Starts an edge with the defaults (its warm-up on) and waits until {@code /readyz} answers 200: warmed up. */
  void startEdgeWithDefaults(String edgeId) {
    Map<String, String> ed = new HashMap<>();
    ed.put("kafka-bootstrap", kafka);
    ed.put("topic-prefix", prefix);
    ed.put("edge-port", "0");
    ed.put("bind", "127.0.0.1");
    ed.put("edge-id", edgeId);
    edge = await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
    poll(() -> send(HttpRequest.newBuilder(URI.create(edgeUrl() + "/readyz")).build()).statusCode() == 200,
        () -> "the edge did not answer /readyz 200 (caught up and warmed up)");
  }

  /** One sample of the edge's /metrics; 0 when absent. */
  double edgeMetric(String series) {
    return metric(edgeUrl() + "/metrics", series);
  }

  /** One sample of the ingester's /metrics; 0 when absent. */
  double ingesterMetric(String series) {
    for (String line : ingester.scrape().split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }

  /** The JDBC URL of the stack's PostgreSQL. */
  String jdbcUrl() {
    return jdbcUrl;
  }

  // ------------------------------------------------------------------ ingester

  /** Starts an ingester on a Vert.x of its own, with small batches so that a kill lands between commits. */
  void startIngester() {
    Map<String, String> in = new HashMap<>();
    in.put("kafka-bootstrap", kafka);
    in.put("topic-prefix", prefix);
    in.put("postgres-url", postgresUrl);
    in.put("consumer-group", prefix + "ingester");
    if (!defaults) {
      in.put("ingest-batch-size", "25");
    }
    in.put("metrics-port", "0");
    ingestVertx = Vertx.vertx();
    ingester = await(TelemetryIngester.start(ingestVertx, IngesterConfig.from(Settings.of(in, Map.of()))));
    ingesters++;
  }

  /**
   * Kills the ingester as a dying process would: its Vert.x (and with it every PostgreSQL connection, so
   * a transaction in flight is aborted) goes first, then its consumer stops without writing anything
   * more and leaves the group.
   */
  void killIngester() {
    Vertx v = ingestVertx;
    TelemetryIngester i = ingester;
    ingester = null;
    ingestVertx = null;
    await(v.close());
    // its last write cannot succeed (the pool went with its Vert.x), and the future of close() lives on
    // that closed Vert.x: what matters is that the consumer loop stops and leaves the group
    i.close();
    poll(() -> !i.running(), () -> "the killed ingester's consumer loop did not stop");
  }

  int ingestersStarted() {
    return ingesters;
  }

  // ------------------------------------------------------------------ control plane

  String controlUrl() {
    return "http://127.0.0.1:" + cp.port();
  }

  /** The CLI's environment for this control plane and the admin token. */
  Map<String, String> cliEnv() {
    return Map.of("UPDRAFT_SERVER", controlUrl(), "UPDRAFT_TOKEN", ADMIN);
  }

  record Run(int status, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (Exception e) {
        throw new AssertionError("not JSON (exit " + status + ", stderr " + err + "): " + out, e);
      }
    }
  }

  /** Runs the real CLI against this control plane. */
  Run cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Cli.run(args, cliEnv(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs the CLI and expects exit status 0. */
  Run ok(String... args) {
    Run r = cli(args);
    assertThat(r.status()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r;
  }

  record Resp(int status, JsonNode json, String text) {
    String errorCode() {
      return json == null ? null : json.path("error").path("code").asText(null);
    }
  }

  /** GET on the control plane's API with the admin token. */
  Resp api(String path) {
    HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(controlUrl() + path)).header("Authorization", "Bearer " + ADMIN).build());
    OpenApiContract.shared()
        .check("GET", controlUrl() + path, r.statusCode(), r.headers().firstValue("content-type").orElse(null), r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    JsonNode n = null;
    try {
      n = JSON.readTree(r.body());
    } catch (Exception e) {
      // not JSON (metrics): keep the text
    }
    return new Resp(r.statusCode(), n, r.body());
  }

  /** GET that must answer 200, as JSON. */
  /** The status of the rollout of {@code group} of {@code app} ({@code active}, {@code reverted}, ...). */
  String rolloutStatus(String app, String group) {
    return get("/v1/apps/" + app + "/updates/" + group).get("rollout").get("status").asText();
  }

  /** The app's one {@code rollout.reverted} audit entry, made by the guard; null when there is none. */
  JsonNode guardRevert(String app) {
    JsonNode found = null;
    for (JsonNode e : get("/v1/apps/" + app + "/audit").get("items")) {
      if (e.get("type").asText().equals("rollout.reverted")) {
        assertThat(found).as("one revert").isNull();
        found = e;
        assertThat(e.get("actor").asText()).isEqualTo("guard");
      }
    }
    return found;
  }

  JsonNode get(String path) {
    Resp r = api(path);
    assertThat(r.status()).as("GET " + path + ": " + r.text()).isEqualTo(200);
    return r.json();
  }

  /** One sample of the control plane's /metrics; 0 when absent. */
  double controlMetric(String series) {
    return metric(controlUrl() + "/metrics", series);
  }

  // ------------------------------------------------------------------ edge

  /** What the edge answered a device. */
  record Answer(int status, String kind, String updateId) {}

  /**
   * One device request as an {@code expo-updates} client sends it (protocol 1, multipart accepted).
   *
   * @param clientId {@code EAS-Client-ID} as sent (iOS sends upper case); null: none
   * @param failed {@code expo-recent-failed-update-ids}, newest first
   */
  Answer device(String app, String clientId, String platform, String channel, String current, String embedded, List<String> failed) {
    return device(app, clientId, platform, RUNTIME, channel, current, embedded, failed);
  }

  /**
   * One device request of a build of {@code runtimeVersion}.
   *
   * @param channel null: none sent (a build without {@code updates.requestHeaders})
   */
  Answer device(String app, String clientId, String platform, String runtimeVersion, String channel, String current, String embedded,
      List<String> failed) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + "/apps/" + app + "/manifest"))
            .header("accept", "multipart/mixed,application/expo+json,application/json")
            .header("expo-platform", platform)
            .header("expo-protocol-version", "1")
            .header("expo-runtime-version", runtimeVersion)
            .header("expo-current-update-id", current)
            .header("expo-embedded-update-id", embedded);
    if (channel != null) {
      b.header("expo-channel-name", channel);
    }
    if (clientId != null) {
      b.header("eas-client-id", clientId);
    }
    if (!failed.isEmpty()) {
      List<String> quoted = new ArrayList<>();
      for (String f : failed) {
        quoted.add("\"" + f + "\"");
      }
      b.header("expo-recent-failed-update-ids", String.join(", ", quoted));
    }
    HttpResponse<byte[]> r;
    requests.incrementAndGet(); // every request of a known app is a check-in, whatever the answer
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw new AssertionError("device request failed: " + e, e);
    }
    if (r.statusCode() != 200) {
      return new Answer(r.statusCode(), "error", null);
    }
    MultipartBody body = StrictMultipartParser.parse(r.headers().firstValue("content-type").orElse(""), r.body());
    try {
      if (body.part("manifest") != null) {
        return new Answer(200, "manifest", JSON.readTree(body.part("manifest").body()).get("id").asText());
      }
      return new Answer(200, JSON.readTree(body.part("directive").body()).get("type").asText(), null);
    } catch (java.io.IOException e) {
      throw new AssertionError("the edge's answer is not JSON", e);
    }
  }

  /** Waits until the edge has folded every event the control plane appended. */
  void awaitEdgeCaughtUp() {
    poll(() -> {
      double appended = controlMetric("updraft_control_events_appended_total");
      return appended > 0 && metric(edgeUrl() + "/metrics", "updraft_edge_events_applied_total") == appended;
    }, () -> "the edge did not fold the control plane's events");
  }

  /** Waits until the edge has had {@code n} check-ins acknowledged by Kafka in total; none dropped. */
  void awaitCheckInsSent(long n) {
    poll(() -> metric(edgeUrl() + "/metrics", "updraft_edge_checkins_sent_total") >= n,
        () -> "the edge did not send " + n + " check-ins: " + metric(edgeUrl() + "/metrics", "updraft_edge_checkins_sent_total"));
    assertThat(metric(edgeUrl() + "/metrics", "updraft_edge_checkins_sent_total")).isEqualTo((double) n);
  }

  String edgeUrl() {
    return "http://127.0.0.1:" + edge.port();
  }

  // ------------------------------------------------------------------ PostgreSQL and Kafka positions

  /** Check-ins on the telemetry topic (its end offsets: check-ins are produced without transactions). */
  long checkInsOnTopic() {
    String topic = Topics.telemetry(prefix);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka))) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      for (var p : admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()) {
        latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
      }
      long sum = 0;
      for (ListOffsetsResult.ListOffsetsResultInfo i : admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
        sum += i.offset();
      }
      return sum;
    } catch (Exception e) {
      throw new AssertionError("cannot read the end offsets of " + topic, e);
    }
  }

  /** Check-ins the ingesters have committed to PostgreSQL (its stored offsets); -1 while it cannot be read. */
  long checkInsCommitted() {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT coalesce(sum(next_offset), 0) FROM ingest_offsets WHERE topic = '" + Topics.telemetry(prefix) + "'")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  /** Waits until every device request made through {@link #device} is a check-in in PostgreSQL. */
  void awaitAllIngested() {
    long n = requests.get();
    awaitCheckInsSent(n);
    awaitIngested(n);
  }

  /** Waits until PostgreSQL holds every check-in on the topic, which must be {@code n}. */
  void awaitIngested(long n) {
    assertThat(checkInsOnTopic()).as("check-ins on the telemetry topic").isEqualTo(n);
    poll(() -> checkInsCommitted() == n, () -> "the ingester committed " + checkInsCommitted() + " of " + n + " check-ins");
  }

  // ------------------------------------------------------------------ plumbing

  private HttpResponse<String> send(HttpRequest r) {
    try {
      return http.send(r, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(r.method() + " " + r.uri() + " failed: " + e, e);
    }
  }

  private double metric(String url, String series) {
    String text = send(HttpRequest.newBuilder(URI.create(url)).build()).body();
    for (String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }

  /** Polls {@code done} every 50 ms until it holds; fails with {@code why} after {@link #TIMEOUT}. */
  static void poll(BooleanSupplier done, Supplier<String> why) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(why.get() + " within " + TIMEOUT.toSeconds() + " s");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException ? (RuntimeException) c : new IllegalStateException(c);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (ingester != null) {
      await(ingester.close());
      await(ingestVertx.close());
    }
    if (edge != null) {
      await(edge.close());
    }
    await(cp.close());
    await(vertx.close());
  }
}
