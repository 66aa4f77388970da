package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Horizontal scale: edges reading one log independently give the same answers, and both serve a publish. */
@ExtendWith(RealInfrastructure.class)
class TwoEdgesIT {
  static final String APP = "scale-app";

  @Test
  void twoEdgesOnOneLogGiveByteIdenticalAnswersAndBothServeANewPublish(Infra infra) throws Exception {
    Vertx vertx = Edges.vertx();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      TestSigner signer = TestSigner.fixture();
      Instant t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(600);
      String noUpdate = "{\"type\":\"noUpdateAvailable\"}";
      log.publish(APP, new EventPayload.AppCreated("Scale"));
      log.publish(APP, new EventPayload.SigningKeyRegistered("main", Files.readString(Fixtures.certificatePem()), "x",
          noUpdate, signer.signatureHeader(noUpdate), List.of()));
      UpdateGroup g1 = FixtureManifests.group("main", "1.0.0", Fixtures.update1(), t, signer, null);
      UpdateGroup beta = FixtureManifests.group("beta", "1.0.0", Fixtures.update2(), t.plusSeconds(1), signer, null);
      UpdateGroup g2 = FixtureManifests.group("main", "1.0.0", Fixtures.update2(), t.plusSeconds(2), signer,
          new EventPayload.Rollout("r-scale", 40, g1.groupId(), null));
      log.publish(APP, new EventPayload.UpdatePublished(g1));
      log.publish(APP, new EventPayload.UpdatePublished(beta));
      log.publish(APP, new EventPayload.ChannelMapped("production", "main",
          new EventPayload.BranchRollout("br-scale", "beta", 25, null)));
      log.publish(APP, new EventPayload.UpdatePublished(g2));

      EdgeNode a = Edges.startReady(vertx, log, "edge-a");
      EdgeNode b = Edges.startReady(vertx, log, "edge-b");
      try {
        EdgeHttp ha = new EdgeHttp(a.port());
        EdgeHttp hb = new EdgeHttp(b.port());
        assertSameAnswers(ha, hb, g1);

        UpdateGroup g3 = FixtureManifests.group("main", "1.0.0", Fixtures.update1(), t.plusSeconds(3), signer, null);
        log.publish(APP, new EventPayload.UpdatePublished(g3));
        String wanted = g3.platform("android").body();
        for (EdgeHttp h : List.of(ha, hb)) {
          Edges.until("the publish is served", () -> {
            EdgeHttp.Response r = h.get("/apps/" + APP + "/manifest", Device.of("android", 1).channel("main").headers());
            return r.status() == 200 && r.text().contains(wanted);
          }, Duration.ofSeconds(30));
        }
        assertSameAnswers(ha, hb, g3);
      } finally {
        Edges.await(a.close());
        Edges.await(b.close());
      }
    } finally {
      Edges.await(vertx.close());
    }
  }

  /** A grid of devices: every answer (status, type, signature, body bytes) is the same from both edges. */
  private static void assertSameAnswers(EdgeHttp a, EdgeHttp b, UpdateGroup running) {
    List<Device> devices = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      for (int protocol = 0; protocol <= 1; protocol++) {
        for (int c = 0; c < 25; c++) {
          devices.add(Device.of(platform, protocol).client("device-" + c).expectSignature());
          devices.add(Device.of(platform, protocol).client("device-" + c).current(running.platform(platform).updateId()));
        }
        devices.add(Device.of(platform, protocol));
        devices.add(Device.of(platform, protocol).accept("application/json"));
        devices.add(Device.of(platform, protocol).channel("main"));
      }
    }
    int manifests = 0;
    for (Device d : devices) {
      EdgeHttp.Response ra = a.get("/apps/" + APP + "/manifest", d.headers());
      EdgeHttp.Response rb = b.get("/apps/" + APP + "/manifest", d.headers());
      assertThat(rb.status()).isEqualTo(ra.status());
      assertThat(rb.header("content-type")).isEqualTo(ra.header("content-type"));
      assertThat(rb.header("expo-signature")).isEqualTo(ra.header("expo-signature"));
      assertThat(rb.body()).as("answer to %s", String.join(" ", d.headers())).isEqualTo(ra.body());
      manifests += ra.text().contains("\"launchAsset\"") ? 1 : 0;
    }
    assertThat(manifests).isGreaterThan(0);
  }
}
