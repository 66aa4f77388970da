package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.FuzzInputs.Input;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.SignatureVerifier;
import dev.updraft.testing.protocol.StrictMultipartParser;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes the manifest route of a real edge (serving real signed updates, a rollout and a roll back to
 * embedded) with {@value FuzzRun#DEFAULT_COUNT} bad requests ({@link FuzzInputs}) of a seed drawn for the run, pipelined on raw
 * sockets: every input must get an answer, every answer must be a 4xx or a valid protocol answer (a
 * multipart body the strict iOS-style parser accepts, or a JSON manifest, with verifying signatures),
 * never a 5xx, a hang or an exception; an input carrying {@code expo-expect-signature} gets a signed
 * answer or a 4xx; an input whose device no mutation changed gets the update (or directive) that device
 * must be served by what the test published ({@link FuzzModel}); the edge still serves a normal device
 * afterwards; and every check-in the fuzz caused reaches the ingester (stored or set aside as a reject,
 * never stuck).
 *
 * <p>Each run draws a fresh seed and prints it first; {@code -Dupdraft.fuzz.seed=N} replays run N (every failure
 * names its seed, input index and bytes). A million inputs: the Maven profile {@code fuzz-long}
 * (docs/reliability.md). {@link FuzzRun}.
 */
@ExtendWith(RealInfrastructure.class)
class ManifestFuzzIT {
  static final FuzzRun RUN = FuzzRun.fromSystemProperties();
  static final long SEED = RUN.seed();
  static final int COUNT = RUN.count();
  static final int CONNECTIONS = 3;
  static final int WINDOW = 32;
  static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
  final AtomicLong answered = new AtomicLong();
  final AtomicLong bareRefusals = new AtomicLong();
  final AtomicLong failures = new AtomicLong();
  final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
  final Map<String, Boolean> verified = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> kindStats = new ConcurrentHashMap<>();
  /** 200 answers to inputs with {@code expo-expect-signature}: each had to carry a signature that verifies. */
  final AtomicLong signedChecked = new AtomicLong();
  /** 200 answers compared with what the model says the input's device must get. */
  final AtomicLong modelChecked = new AtomicLong();
  final Map<String, AtomicLong> servedKinds = new ConcurrentHashMap<>();
  SignatureVerifier verifier;
  FuzzModel model;
  int port;

  /** The ingester's rejects of this test's telemetry topic by why, the lengths and values left out. */
  private static Map<String, Long> rejectsByWhy(Infra infra) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (Connection c = DriverManager.getConnection(infra.jdbcUrl(), infra.pgUser(), infra.pgPassword());
        PreparedStatement st = c.prepareStatement(
            "SELECT split_part(error, ':', 1), count(*) FROM ingest_rejects WHERE topic = ? GROUP BY 1")) {
      st.setString(1, Topics.telemetry(infra.topicPrefix()));
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), rs.getLong(2));
        }
      }
    }
    return out;
  }

  @Test
  void everyBadManifestRequestGetsA4xxOrAValidAnswerAndTheEdgeKeepsServing(Infra infra, @TempDir Path dir) throws Exception {
    System.out.println(RUN.banner());
    AtomicLong handlerExceptions = new AtomicLong();
    Vertx vertx = Vertx.vertx();
    vertx.exceptionHandler(t -> {
      handlerExceptions.incrementAndGet();
      if (examples.size() < 30) {
        examples.add("unhandled exception on an event loop: " + t);
      }
    });
    verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"));
    EdgeNode edge = null;
    TelemetryIngester ingester = null;
    try {
      String server = "http://127.0.0.1:" + cp.port();
      List<Map.Entry<String, JsonNode>> published = Publishing.fuzzApps(server);
      List<String> ids = new ArrayList<>();
      for (Map.Entry<String, JsonNode> p : published) {
        ids.addAll(Publishing.updateIds(p.getValue()));
      }
      model = new FuzzModel(published);
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "fuzz-edge", "event-loops", "2");
      port = edge.port();

      FuzzInputs inputs = new FuzzInputs(SEED, ids);
      long t0 = System.nanoTime();
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < CONNECTIONS; c++) {
        int lane = c;
        Thread t = new Thread(() -> lane(inputs, lane), "fuzz-" + c);
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join(Duration.ofMinutes(10).toMillis());
        assertThat(t.isAlive()).as("fuzz lane still running after 10 minutes").isFalse();
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      Map<Integer, Long> byStatus = new TreeMap<>();
      statuses.forEach((k, v) -> byStatus.put(k, v.get()));
      System.out.printf(
          "manifest fuzz: seed=%d inputs=%d answered=%d in %d ms (%.0f/s) statuses=%s bare-decoder-refusals=%d 5xx=%d failures=%d%n",
          SEED, COUNT, answered.get(), ms, COUNT * 1000.0 / Math.max(1, ms), byStatus, bareRefusals.get(),
          byStatus.entrySet().stream().filter(e -> e.getKey() >= 500).mapToLong(Map.Entry::getValue).sum(), failures.get());

      Map<String, Long> byKind = new TreeMap<>();
      kindStats.forEach((k, v) -> byKind.put(k, v.get()));
      System.out.println("manifest fuzz: answers by first mutation class: " + byKind);
      Map<String, Long> served = new TreeMap<>();
      servedKinds.forEach((k, v) -> served.put(k, v.get()));
      long ok = statuses.getOrDefault(200, new AtomicLong()).get();
      System.out.printf("manifest fuzz: of %d × 200, %d asked for a signature and carried one that verifies; %d were checked"
              + " against what their device must get (%s), the others' devices were changed by a mutation%n",
          ok, signedChecked.get(), modelChecked.get(), served);
      assertThat(examples).as("failures (first ones) of seed %d; replay: %s", SEED, RUN.replay()).isEmpty();
      assertThat(failures.get()).as("failures of seed %d", SEED).isZero();
      assertThat(handlerExceptions.get()).as("exceptions escaping the edge's handlers, seed %d", SEED).isZero();
      assertThat(answered.get()).as("inputs answered, seed %d", SEED).isEqualTo(COUNT);
      assertThat(byStatus.keySet()).allMatch(s -> s >= 200 && s < 500);
      assertThat(byStatus.getOrDefault(200, 0L)).as("some inputs are still valid requests").isPositive();
      assertThat(signedChecked.get()).as("signed answers checked").isPositive();
      // about half: the other 200s answer requests whose deciding headers a mutation changed (their form is checked)
      assertThat(modelChecked.get()).as("200 answers checked against the update their device must get")
          .isGreaterThan(byStatus.getOrDefault(200, 0L) / 3);
      assertThat(servedKinds.keySet()).as("the kinds of answers checked against the model")
          .contains(FuzzModel.Answer.UPDATE, FuzzModel.Answer.NO_UPDATE, FuzzModel.Answer.ROLLBACK);

      // the edge is unharmed: ready, and a normal device gets the published, signed manifest
      assertThat(edge.ready()).isTrue();
      Publishing.assertServesSigned(port, "fuzz", "main", ids.get(0), verifier);

      // every check-in the fuzz caused is consumed: stored, or set aside as a reject; nothing is stuck
      EdgeNode e = edge;
      Services.until("the edge delivered its check-ins", () -> {
        String m = scrapeEdge(e);
        return Metrics.value(m, "updraft_edge_checkins_queued") == 0 && Metrics.value(m, "updraft_edge_checkins_unacknowledged") == 0
            && Metrics.value(m, "updraft_edge_checkins_sent_total") > 0;
      }, Duration.ofSeconds(60));
      String edgeMetrics = scrapeEdge(edge);
      assertThat(Metrics.value(edgeMetrics, "updraft_edge_checkins_dropped_total{reason=\"delivery-failed\"}")).isZero();
      long ti = System.nanoTime();
      ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(),
          Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()));
      TelemetryIngester ing = ingester;
      double sent = Metrics.value(edgeMetrics, "updraft_edge_checkins_sent_total");
      Services.until(() -> "the ingester consumed every check-in: sent=" + sent + " ingester=" + ing.scrape(),
          () -> Metrics.value(ing.scrape(), "updraft_ingest_records_total") + Metrics.value(ing.scrape(), "updraft_ingest_decode_errors_total") == sent,
          Duration.ofSeconds(120));
      System.out.printf("manifest fuzz: %.0f check-ins sent by the edge, %.0f stored by the ingester, %.0f set aside as rejects, in %d ms%n",
          sent, Metrics.value(ing.scrape(), "updraft_ingest_records_total"), Metrics.value(ing.scrape(), "updraft_ingest_decode_errors_total"),
          (System.nanoTime() - ti) / 1_000_000);
      Map<String, Long> rejects = rejectsByWhy(infra);
      System.out.printf("manifest fuzz: rejects by why: %s%n", rejects);
      // only ids no client sends are set aside (a real client's ids are UUIDs, its platform ios or android): a device
      // the edge answered with a long channel, or refused for having no platform, is counted, not dropped
      assertThat(rejects.keySet()).as("why check-ins were set aside").allMatch(why -> why.endsWith(" longer than 128 characters"));
      assertThat(rejects.values().stream().mapToLong(Long::longValue).sum()).as("rejects by why, in all")
          .isEqualTo((long) Metrics.value(ing.scrape(), "updraft_ingest_decode_errors_total"));
    } finally {
      if (ingester != null) {
        Services.await(ingester.close());
      }
      if (edge != null) {
        Services.await(edge.close());
      }
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  private String scrapeEdge(EdgeNode e) {
    return Metrics.scrape("http://127.0.0.1:" + e.port() + "/metrics");
  }

  /** Sends inputs {@code lane}, {@code lane + CONNECTIONS}, ...: alone ones on a connection each, the others pipelined. */
  private void lane(FuzzInputs inputs, int lane) {
    List<Input> batch = new ArrayList<>(WINDOW);
    for (long i = lane; i < COUNT; i += CONNECTIONS) {
      Input in = inputs.input(i);
      if (in.alone()) {
        alone(in);
        continue;
      }
      batch.add(in);
      if (batch.size() == WINDOW) {
        pipelined(batch);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      pipelined(batch);
    }
  }

  private void alone(Input in) {
    try (RawHttp c = new RawHttp(port, 10_000)) {
      try {
        c.write(in.bytes());
        c.flush();
      } catch (IOException e) {
        // the server may close before reading everything (e.g. a refused huge request): read its answer
      }
      RawHttp.Response r = c.read(in.head());
      if (r == null) {
        fail(in, "the connection closed without an answer");
      } else {
        check(in, r);
      }
    } catch (SocketTimeoutException e) {
      fail(in, "no answer within 10 s");
    } catch (IOException e) {
      fail(in, "broken answer: " + e.getMessage());
    }
  }

  /**
   * Pipelines the batch eight requests at a time (so a connection the server closes wastes at most seven
   * requests, which are sent again on a new one); an input that nothing answers, even alone, fails.
   */
  private void pipelined(List<Input> batch) {
    int i = 0;
    RawHttp c = null;
    try {
      while (i < batch.size()) {
        if (c == null) {
          c = new RawHttp(port, 10_000);
        }
        int end = Math.min(batch.size(), i + 8);
        try {
          for (int j = i; j < end; j++) {
            c.write(batch.get(j).bytes());
          }
          c.flush();
        } catch (IOException e) {
          // closed while we wrote: read the answers it sent before closing
        }
        int got = 0;
        boolean closed = false;
        try {
          for (int j = i; j < end; j++) {
            RawHttp.Response r = c.read(false);
            if (r == null) {
              closed = true;
              break;
            }
            check(batch.get(j), r);
            got++;
            if (r.closes()) {
              closed = true;
              break;
            }
          }
        } catch (SocketTimeoutException e) {
          fail(batch.get(i + got), "no answer within 10 s");
          got++;
          closed = true;
        } catch (IOException e) {
          fail(batch.get(i + got), "broken answer: " + e.getMessage());
          got++;
          closed = true;
        }
        if (got == 0) {
          // first in line and nothing came back: try it once more alone before calling it a failure
          alone(batch.get(i));
          got = 1;
        }
        i += got;
        if (closed) {
          c.close();
          c = null;
        }
      }
    } catch (IOException e) {
      fail(batch.get(i), "cannot connect: " + e.getMessage());
    } finally {
      if (c != null) {
        c.close();
      }
    }
  }

  private void fail(Input in, String why) {
    answered.incrementAndGet();
    failures.incrementAndGet();
    if (examples.size() < 30) {
      examples.add(RUN.failure(in.index(), in.kinds(), why, in.bytes()));
    }
  }

  private static String preview(byte[] b) {
    String s = new String(b, 0, Math.min(b.length, 300), StandardCharsets.ISO_8859_1);
    return "'" + s.replace("\r", "\\r").replace("\n", "\\n") + "'" + (b.length > 300 ? " (" + b.length + " bytes)" : "");
  }

  private void check(Input in, RawHttp.Response r) {
    statuses.computeIfAbsent(r.status(), k -> new AtomicLong()).incrementAndGet();
    String problem = problem(in, r);
    if (problem != null) {
      fail(in, "HTTP " + r.status() + ": " + problem + "; body " + preview(r.body()));
      statuses.get(r.status()).decrementAndGet();
      return;
    }
    answered.incrementAndGet();
  }

  /** What is wrong with this answer, or null. */
  private String problem(Input in, RawHttp.Response r) {
    int s = r.status();
    if (s >= 500 || s < 200 || (s >= 300 && s < 400)) {
      return "not a 2xx or 4xx";
    }
    String type = r.header("content-type");
    kindStats.computeIfAbsent(in.kinds().split("[( ]")[0] + (s == 200 ? " 200" : type == null ? " bare-4xx" : " json-4xx"), k -> new AtomicLong()).incrementAndGet();
    if (s >= 400 && in.head()) {
      return null; // an answer to HEAD has no body to check
    }
    if (s >= 400) {
      if (type == null) {
        if (s == 400 || s == 414 || s == 431 || s == 505) {
          bareRefusals.incrementAndGet(); // the HTTP decoder's refusal of a malformed message
          return null;
        }
        return "a refusal without a body";
      }
      if (!type.startsWith("application/json")) {
        return "a refusal that is not JSON: " + type;
      }
      JsonNode e = json(r.body());
      if (e == null || !e.path("error").path("code").isTextual() || e.path("error").path("message").asText("").isEmpty()) {
        return "a refusal without {\"error\":{\"code\",\"message\"}}";
      }
      return null;
    }
    if (s != 200) {
      return "unexpected success status";
    }
    if (in.head()) {
      return null;
    }
    if (r.header("expo-protocol-version") == null || !"private, max-age=0".equals(r.header("cache-control"))) {
      return "an answer without expo-protocol-version or with cache-control " + r.header("cache-control");
    }
    if (type == null) {
      return "an answer without content-type";
    }
    if (type.startsWith("multipart/mixed")) {
      MultipartBody body;
      try {
        body = StrictMultipartParser.parse(type, r.body());
      } catch (RuntimeException e) {
        return "a multipart body the strict parser refuses: " + e.getMessage();
      }
      MultipartPart manifest = body.part("manifest");
      MultipartPart directive = body.part("directive");
      if ((manifest == null) == (directive == null)) {
        return "not exactly one of a manifest and a directive";
      }
      MultipartPart p = manifest != null ? manifest : directive;
      JsonNode n = json(p.body());
      if (n == null) {
        return "a part that is not JSON";
      }
      if (manifest != null && !UUID.matcher(n.path("id").asText()).matches()) {
        return "a manifest without a UUID id";
      }
      if (directive != null && !(n.path("type").asText().equals("noUpdateAvailable") || n.path("type").asText().equals("rollBackToEmbedded"))) {
        return "an unknown directive type";
      }
      FuzzModel.Answer served = manifest != null ? FuzzModel.Answer.update(n.path("id").asText()) : FuzzModel.Answer.of(n.path("type").asText());
      return answered(in, served, p.body(), p.headerExact("expo-signature"));
    }
    if (type.equals("application/json") || type.equals("application/expo+json")) {
      JsonNode n = json(r.body());
      if (n == null || !UUID.matcher(n.path("id").asText()).matches()) {
        return "a JSON manifest without a UUID id";
      }
      return answered(in, FuzzModel.Answer.update(n.path("id").asText()), r.body(), r.header("expo-signature"));
    }
    return "an answer of content-type " + type;
  }

  /**
   * What is wrong with a well-formed 200 answer, or null: unsigned although the input asked for a
   * signature, a signature that does not verify, or another answer than the one its device must get.
   *
   * @param signature the {@code expo-signature} of the signed bytes; null when absent
   */
  private String answered(Input in, FuzzModel.Answer served, byte[] signed, String signature) {
    if (signature != null) {
      String bad = verify(signed, signature);
      if (bad != null) {
        return bad;
      }
    }
    if (in.asksSignature()) {
      if (signature == null) {
        return "the request asked for a signature (expo-expect-signature) and the answer is unsigned";
      }
      signedChecked.incrementAndGet();
    }
    if (in.device() == null) {
      return null; // a mutation changed what decides the answer: only its form is checked
    }
    FuzzModel.Answer expected = model.expect(in.device());
    if (expected == null) {
      return null;
    }
    modelChecked.incrementAndGet();
    servedKinds.computeIfAbsent(served.kind(), k -> new AtomicLong()).incrementAndGet();
    return expected.equals(served) ? null : "served " + served + " where the device " + in.device() + " must get " + expected;
  }

  private String verify(byte[] body, String header) {
    String key;
    try {
      key = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)) + header;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    boolean ok = verified.computeIfAbsent(key, k -> {
      try {
        return verifier.verify(body, ExpoSignature.parse(header));
      } catch (RuntimeException e) {
        return false;
      }
    });
    return ok ? null : "a signature that does not verify with the app's certificate: " + header;
  }

  private static JsonNode json(byte[] b) {
    try {
      return CliRun.JSON.readTree(b);
    } catch (IOException e) {
      return null;
    }
  }
}
