package dev.updraft.edge;

import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Publish-to-served latency over two edges: the time from the publish call returning (here: the test
 * publisher's append of {@code update.published} acknowledged by Kafka, {@code acks=all}) until both edges
 * serve the new update to a device, over 100 publishes. Not a test (a {@code main}); how to run it and
 * the results: {@code docs/benchmarks/edge-publish-latency.md}.
 *
 * <p>Arguments (optional): {@code publishes=100 warmup=10}.
 */
public final class PublishLatencyBench {
  private PublishLatencyBench() {}

  public static void main(String[] args) throws Exception {
    int publishes = 100;
    int warmup = 10;
    for (String a : args) {
      if (a.startsWith("publishes=")) {
        publishes = Integer.parseInt(a.substring(10));
      } else if (a.startsWith("warmup=")) {
        warmup = Integer.parseInt(a.substring(7));
      }
    }
    Path dir = Files.createTempDirectory("edge-latency");
    EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0, 0);
    Vertx va = Edges.vertx();
    Vertx vb = Edges.vertx();
    try (TestLog log = new TestLog(kafka.bootstrapServers(), "latency.")) {
      TestSigner signer = TestSigner.fixture();
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minus(1, ChronoUnit.DAYS);
      String noUpdate = "{\"type\":\"noUpdateAvailable\"}";
      log.publish("latency", new EventPayload.AppCreated("Latency"));
      log.publish("latency", new EventPayload.SigningKeyRegistered("main", Files.readString(Fixtures.certificatePem()),
          "x", noUpdate, signer.signatureHeader(noUpdate), List.of()));
      List<UpdateGroup> groups = new ArrayList<>();
      for (int i = 0; i < publishes + warmup; i++) {
        groups.add(FixtureManifests.group("production", "1.0.0", i % 2 == 0 ? Fixtures.update1() : Fixtures.update2(),
            t.plusSeconds(i), signer, null));
      }
      EdgeNode a = Edges.startReady(va, log, "edge-a", "checkins", "true");
      EdgeNode b = Edges.startReady(vb, log, "edge-b", "checkins", "true");
      EdgeHttp ha = new EdgeHttp(a.port());
      EdgeHttp hb = new EdgeHttp(b.port());
      String[] device = Device.of("android", 1).client("latency-device").expectSignature().headers();

      List<Double> both = new ArrayList<>();
      List<Double> first = new ArrayList<>();
      for (int i = 0; i < groups.size(); i++) {
        UpdateGroup g = groups.get(i);
        String id = g.platform("android").updateId();
        log.publish("latency", new EventPayload.UpdatePublished(g));
        long returned = System.nanoTime();
        long seenA = -1;
        long seenB = -1;
        while (seenA < 0 || seenB < 0) {
          if (seenA < 0 && ha.get("/apps/latency/manifest", device).text().contains(id)) {
            seenA = System.nanoTime();
          }
          if (seenB < 0 && hb.get("/apps/latency/manifest", device).text().contains(id)) {
            seenB = System.nanoTime();
          }
          if (System.nanoTime() - returned > 60_000_000_000L) {
            throw new IllegalStateException("publish " + i + " not served within 60 s");
          }
        }
        if (i >= warmup) {
          both.add((Math.max(seenA, seenB) - returned) / 1e6);
          first.add((Math.min(seenA, seenB) - returned) / 1e6);
        }
      }
      System.out.println("| measure | n | p50 ms | p90 ms | p99 ms | max ms |");
      System.out.println("|---|---|---|---|---|---|");
      print("served by both edges", both);
      print("served by the first edge", first);
      Edges.await(a.close());
      Edges.await(b.close());
    } finally {
      Edges.await(va.close());
      Edges.await(vb.close());
      kafka.close();
      ThroughputBench.deleteTree(dir);
    }
  }

  private static void print(String what, List<Double> ms) {
    List<Double> s = new ArrayList<>(ms);
    Collections.sort(s);
    System.out.printf("| %s | %d | %.1f | %.1f | %.1f | %.1f |%n", what, s.size(), pct(s, 50), pct(s, 90), pct(s, 99),
        s.get(s.size() - 1));
  }

  /** Nearest-rank percentile. */
  private static double pct(List<Double> sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}
