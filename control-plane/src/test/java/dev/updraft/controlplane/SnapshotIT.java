package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.Topics;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A control plane started after a snapshot reads only the tail of the log and holds what one that replayed
 * from offset 0 holds (and answers the same); a snapshot it cannot use (an unknown version, a corrupt
 * chunk) means a replay of that app; a control plane that dies while writing a snapshot loses nothing.
 */
@ExtendWith(RealInfrastructure.class)
class SnapshotIT {
  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    TestSupport.await(vertx.close());
  }

  @Test
  void startsFromTheSnapshotAndTheTailAndEqualsAFullReplay(Infra infra, @TempDir Path dir) throws Exception {
    String prefix = infra.topicPrefix() + "tail.";
    ControlPlane first = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    ControlState written;
    try {
      Http h = http(first);
      scenario(h, 24, "snap", "other");
      assertThat(TestSupport.await(first.snapshotNow())).isEqualTo(2);
      // the tail: events after the snapshot
      publish(h, "snap", "beta", Fixtures.update2());
      h.post("/v1/apps/snap/tokens", Map.of("role", "read", "label", "tail"));
      written = first.state();
    } finally {
      TestSupport.await(first.close());
    }
    ControlPlane fromSnapshot = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    ControlPlane fromZero = null;
    try {
      long[] started = fromSnapshot.startedFrom();
      assertThat(started[0]).as("apps started from snapshots").isEqualTo(2);
      assertThat(started[1]).as("events replayed after the snapshots: the tail only").isBetween(2L, 6L);
      assertThat(withoutAudit(fromSnapshot.state())).isEqualTo(withoutAudit(written));

      fromZero = TestSupport.start(vertx, TestSupport.config(infra, dir.resolve("zero"), "topic-prefix", prefix, "snapshot-interval-events", "0"));
      assertThat(withoutAudit(fromZero.state())).isEqualTo(withoutAudit(fromSnapshot.state()));
      Http a = http(fromSnapshot);
      Http b = http(fromZero);
      for (String path : List.of("/v1/apps/snap", "/v1/apps/snap/updates?branch=main&runtimeVersion=1.0.0", "/v1/apps/snap/channels",
          "/v1/apps/snap/tokens", "/v1/apps/other", "/v1/apps/snap/updates?branch=main&runtimeVersion=1.0.0&limit=3")) {
        assertThat(a.get(path).text()).as(path).isEqualTo(b.get(path).text());
      }
    } finally {
      if (fromZero != null) {
        TestSupport.await(fromZero.close());
      }
      TestSupport.await(fromSnapshot.close());
    }
  }

  @Test
  void aSnapshotOfAnUnknownVersionOrACorruptChunkFallsBackToAReplay(Infra infra, @TempDir Path dir) throws Exception {
    String prefix = infra.topicPrefix() + "bad.";
    ControlPlane first = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    ControlState written;
    try {
      scenario(http(first), 4, "v-snap", "v-other");
      assertThat(TestSupport.await(first.snapshotNow())).isEqualTo(2);
      written = first.state();
    } finally {
      TestSupport.await(first.close());
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    String topic = Topics.snapshots(prefix);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      // app "snap": a manifest of a format this build does not know; app "other": its chunk replaced by junk
      producer.send(new ProducerRecord<>(topic, "v-snap", ("{\"v\":99,\"appId\":\"v-snap\",\"snapshotId\":\"x\",\"partition\":0,\"offset\":1,"
          + "\"lastSequence\":1,\"chunks\":1,\"size\":1,\"sha256\":\"00\"}").getBytes(StandardCharsets.UTF_8))).get();
      String otherManifest = manifestOf(infra, prefix, "v-other");
      SnapshotCodec.SnapshotManifest m = SnapshotCodec.decodeManifest(otherManifest.getBytes(StandardCharsets.UTF_8));
      producer.send(new ProducerRecord<>(topic, SnapshotCodec.chunkKey("v-other", m.snapshotId(), 0), new byte[] {1, 2, 3})).get();
    }
    ControlPlane again = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    try {
      assertThat(again.startedFrom()[0]).as("no snapshot used").isZero();
      assertThat(withoutAudit(again.state())).isEqualTo(withoutAudit(written));
      String metrics = http(again).get("/metrics").text();
      assertThat(metrics).contains("updraft_snapshot_fallbacks_total{reason=\"unknown-version\"} 1.0")
          .contains("updraft_snapshot_fallbacks_total{reason=\"corrupt\"} 1.0");
    } finally {
      TestSupport.await(again.close());
    }
  }

  @Test
  void aControlPlaneThatDiesWhileWritingASnapshotLosesNothing(Infra infra, @TempDir Path dir) throws Exception {
    String prefix = infra.topicPrefix() + "kill.";
    ControlPlane first = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    try {
      scenario(http(first), 3, "k-snap", "k-other");
      assertThat(TestSupport.await(first.snapshotNow())).isEqualTo(2);
    } finally {
      TestSupport.await(first.close());
    }
    // the next instance dies after sending a snapshot's chunks, before the commit
    Hooks dying = new Hooks(Clock.systemUTC(), null, null, () -> {
      throw new IllegalStateException("killed between the chunks and the commit");
    });
    ControlPlane second = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix), dying);
    ControlState written;
    try {
      Http h = http(second);
      for (int i = 0; i < 3; i++) {
        publish(h, "k-snap", "beta", i % 2 == 0 ? Fixtures.update1() : Fixtures.update2());
      }
      assertThat(TestSupport.await(second.snapshotNow())).as("nothing written").isZero();
      written = second.state();
    } finally {
      TestSupport.await(second.close());
    }
    ControlPlane third = TestSupport.start(vertx, TestSupport.config(infra, dir, "topic-prefix", prefix));
    try {
      assertThat(third.startedFrom()[0]).as("the earlier snapshots are intact").isEqualTo(2);
      assertThat(third.startedFrom()[1]).as("the events after them").isGreaterThanOrEqualTo(3);
      assertThat(withoutAudit(third.state())).isEqualTo(withoutAudit(written));
    } finally {
      TestSupport.await(third.close());
    }
  }

  // ------------------------------------------------------------------ helpers

  static Http http(ControlPlane cp) {
    return new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
  }

  /** Two apps; on "snap" a key, a channel, a token, {@code publishes} publishes (the third pinned), a retention policy and a rollout. */
  static void scenario(Http h, int publishes, String snap, String other) throws Exception {
    ObjectNode app = Http.JSON.createObjectNode();
    app.put("appId", snap);
    app.put("certificatePem", Files.readString(Fixtures.certificatePem()));
    app.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs8Pem()));
    assertThat(h.post("/v1/apps", app).status()).isEqualTo(201);
    assertThat(h.post("/v1/apps", Map.of("appId", other)).status()).isEqualTo(201);
    h.post("/v1/apps/" + snap + "/tokens", Map.of("role", "publish", "label", "ci"));
    ExportFixture.upload(h, snap, Fixtures.update1());
    ExportFixture.upload(h, snap, Fixtures.update2());
    ExportFixture.upload(h, other, Fixtures.update1());
    for (int i = 0; i < publishes; i++) {
      publish(h, snap, "main", i % 2 == 0 ? Fixtures.update1() : Fixtures.update2());
      if (i == 2) { // pinned: held past the window, so the snapshot must carry the pin
        String third = h.get("/v1/apps/" + snap + "/updates?limit=1").json().get("items").get(0).get("groupId").asText();
        assertThat(h.put("/v1/apps/" + snap + "/updates/" + third + "/pin", null).status()).isEqualTo(200);
      }
    }
    assertThat(h.put("/v1/apps/" + snap + "/retention", Map.of("keep", 100)).status()).isEqualTo(200);
    publish(h, other, "main", Fixtures.update1());
    ObjectNode rollout = ExportFixture.publishBody(Fixtures.update1(), "main", "1.0.0");
    rollout.put("rolloutPercentage", 30);
    assertThat(h.post("/v1/apps/" + snap + "/updates", rollout).status()).isEqualTo(201);
    assertThat(h.put("/v1/apps/" + snap + "/channels/production", Map.of("branch", "main")).status()).isLessThan(300);
  }

  static void publish(Http h, String app, String branch, Path dist) {
    Http.Resp r = h.post("/v1/apps/" + app + "/updates", ExportFixture.publishBody(dist, branch, "1.0.0"));
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
  }

  /** The state without audit logs (history, kept in PostgreSQL, not in snapshots); pins and retention policies included. */
  static ControlState withoutAudit(ControlState s) {
    return s; // the state holds no audit log any more (the ingester projects it into PostgreSQL)
  }

  /** The current manifest record of an app in the snapshots topic. */
  static String manifestOf(Infra infra, String prefix, String appId) {
    Properties p = new Properties();
    p.put("bootstrap.servers", infra.kafkaBootstrap());
    p.put("isolation.level", "read_committed");
    String topic = Topics.snapshots(prefix);
    String found = null;
    try (var c = new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(p,
        new org.apache.kafka.common.serialization.StringDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (var r : c.poll(java.time.Duration.ofMillis(200))) {
          if (appId.equals(r.key()) && r.value() != null) {
            found = new String(r.value(), StandardCharsets.UTF_8);
          }
        }
      }
    }
    return found;
  }
}
