package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys in use, through a real edge, Kafka, ingester, PostgreSQL, control plane and CLI: a device asks the edge for
 * keyid k2 (and verifies k2's signature), its check-in reaches PostgreSQL, and retiring k2 is then refused with 409
 * {@code key-in-use} naming the keyid, when it was last asked and by how many devices; a key nobody asked for (k3)
 * retires; {@code keys retire --force} retires k2 and the audit says it was forced and what it overrode.
 */
@ExtendWith(RealInfrastructure.class)
class KeyInUseIT {
  static final String APP = "keys-in-use";

  @Test
  void aKeyDevicesAskedForIsRetiredOnlyWhenForcedAndTheAuditSaysSo(Infra infra, @TempDir Path dir) throws Exception {
    String pg = "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    Vertx vertx = Vertx.vertx();
    Vertx ingestVertx = Vertx.vertx();
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"), "postgres-url", pg);
    TelemetryIngester ingester = Services.ingester(ingestVertx, infra.kafkaBootstrap(), infra.topicPrefix(), pg);
    EdgeNode edge = null;
    try {
      String base = "http://127.0.0.1:" + cp.port();
      CliRun.ok(base, Services.ADMIN, "apps", "create", APP, "--certificate", Fixtures.certificatePem().toString(),
          "--private-key", Fixtures.privateKeyPkcs8Pem().toString());
      String updateId = Publishing.updateIds(Publishing.publish(base, APP, "main", 1)).get(0);
      for (String keyId : new String[] {"k2", "k3"}) {
        Path k = dir.resolve(keyId);
        CliRun gen = CliRun.run(base, null, "keys", "generate", "--out", k.toString(), "--common-name", "Keys in use " + keyId);
        assertThat(gen.status()).as(gen.err()).isZero();
        CliRun.ok(base, Services.ADMIN, "keys", "register", "--app", APP, "--certificate", k.resolve("certificate.pem").toString(),
            "--private-key", k.resolve("private-key.pem").toString(), "--key-id", keyId);
      }
      // started after the ring has its three keys: ready means it folded them (no probe asks for a key)
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "keys-in-use-edge");

      Instant beforeAsk = Instant.now().truncatedTo(ChronoUnit.MILLIS);
      SignedDevice.Answer a = SignedDevice.ask(edge.port(), APP, "main", "device-k2", "k2", null);
      Instant afterAsk = Instant.now();
      assertThat(a.id()).isEqualTo(updateId);
      assertThat(a.signature().keyId()).isEqualTo("k2");
      assertThat(SignatureVerifier.fromCertificatePem(dir.resolve("k2").resolve("certificate.pem")).verify(a.body(), a.signature()))
          .as("the device verifies k2's signature").isTrue();

      // the device's row and its ask are written in one transaction: once the row is there, so is the ask
      String jdbc = "jdbc:postgresql://" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database() + "?user=" + infra.pgUser();
      Services.until("the ingester stored the device's check-in", () -> devices(jdbc) == 1, Duration.ofSeconds(60));

      HttpResponse<String> refused = delete(base + "/v1/apps/" + APP + "/keys/k2");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(409);
      JsonNode err = CliRun.JSON.readTree(refused.body()).get("error");
      assertThat(err.get("code").asText()).isEqualTo("key-in-use");
      assertThat(err.get("keyId").asText()).isEqualTo("k2");
      Instant lastAsked = Instant.parse(err.get("lastAskedAt").asText());
      assertThat(lastAsked).as("when the device asked").isBetween(beforeAsk, afterAsk);
      assertThat(err.get("devices").asLong()).isEqualTo(1);
      assertThat(err.get("windowDays").asLong()).isEqualTo(30);
      assertThat(err.get("message").asText()).contains("keyid k2", "1 device(s)", lastAsked.toString());

      JsonNode k2 = usage(base, "k2");
      assertThat(k2.path("devices").asLong()).isEqualTo(1);
      assertThat(Instant.parse(k2.get("lastAskedAt").asText())).isEqualTo(lastAsked);
      assertThat(usage(base, "k3").path("devices").asLong()).isZero();
      assertThat(usage(base, "k3").get("lastAskedAt").isNull()).isTrue();
      assertThat(usage(base, "main").path("devices").asLong()).isZero();
      CliRun cliRefused = CliRun.run(base, Services.ADMIN, "keys", "retire", "--app", APP, "--key-id", "k2");
      assertThat(cliRefused.status()).as(cliRefused.out()).isNotZero();
      assertThat(cliRefused.err()).contains("key-in-use", "keyid k2");
      assertThat(keyIds(base)).containsExactly("main", "k2", "k3");

      CliRun unasked = CliRun.run(base, Services.ADMIN, "keys", "retire", "--app", APP, "--key-id", "k3");
      assertThat(unasked.status()).as("a key no device asked for retires: " + unasked.err()).isZero();
      assertThat(keyIds(base)).containsExactly("main", "k2");

      CliRun forced = CliRun.run(base, Services.ADMIN, "keys", "retire", "--app", APP, "--key-id", "k2", "--force");
      assertThat(forced.status()).as(forced.err()).isZero();
      assertThat(forced.out()).contains("retired key k2 of app " + APP + " (forced)");
      assertThat(keyIds(base)).containsExactly("main");
      int port = edge.port();
      Services.until("the edge refuses keyid k2", () -> SignedDevice.status(port, APP, "main", "k2") == 400, Duration.ofSeconds(60));

      String expected = "retired signing key keyid=k2 (forced: 1 device(s) had asked for it, last at " + lastAsked + ")";
      Services.until("the audit says k2 was retired by force",
          () -> CliRun.ok(base, Services.ADMIN, "audit", "--app", APP).toString().contains(expected), Duration.ofSeconds(60));
      String audit = CliRun.ok(base, Services.ADMIN, "audit", "--app", APP).toString();
      assertThat(audit).contains("retired signing key keyid=k3\"").doesNotContain("keyid=k3 (forced");
    } finally {
      if (edge != null) {
        Services.await(edge.close());
      }
      Services.await(ingester.close());
      Services.await(ingestVertx.close());
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  private static long devices(String jdbc) {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc);
        java.sql.PreparedStatement st = c.prepareStatement("SELECT count(*) FROM devices WHERE app_id = ?")) {
      st.setString(1, APP);
      try (java.sql.ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (java.sql.SQLException e) {
      throw new AssertionError("reading " + jdbc + ": " + e.getMessage(), e);
    }
  }

  private static JsonNode usage(String base, String keyId) {
    for (JsonNode k : CliRun.ok(base, Services.ADMIN, "keys", "usage", "--app", APP).get("items")) {
      if (k.get("keyId").asText().equals(keyId)) {
        return k;
      }
    }
    throw new AssertionError("keys usage lists no " + keyId);
  }

  private static java.util.List<String> keyIds(String base) {
    java.util.List<String> out = new java.util.ArrayList<>();
    for (JsonNode k : CliRun.ok(base, Services.ADMIN, "keys", "list", "--app", APP).get("items")) {
      out.add(k.get("keyId").asText());
    }
    return out;
  }

  private static HttpResponse<String> delete(String url) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    return http.send(HttpRequest.newBuilder(URI.create(url)).DELETE().header("Authorization", "Bearer " + Services.ADMIN)
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
