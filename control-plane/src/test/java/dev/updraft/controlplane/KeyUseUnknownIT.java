package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.embedded.Ports;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TestCertificates;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys in use when the telemetry database cannot be used (nothing listens at --postgres-url): retiring a key is
 * refused with 503 {@code key-use-unknown} naming the keyid and the database, the key usage route answers 200 with {@code known: false} and the reason, and
 * {@code ?force=true} retires it, recording a forced retirement whose asks were unknown. A bad {@code force} is a 400.
 */
@ExtendWith(RealInfrastructure.class)
class KeyUseUnknownIT {

  private static ObjectNode key(String keyId, String certificatePem, String privateKeyPem) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("keyId", keyId);
    b.put("certificatePem", certificatePem);
    b.put("privateKeyPem", privateKeyPem);
    return b;
  }

  @Test
  void withoutTheTelemetryDatabaseAKeyIsRetiredOnlyWhenForced(Infra infra, @TempDir Path dir) throws Exception {
    int deadPort = Ports.freePort(); // nothing listens there
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, TestSupport.config(infra, dir, "postgres-url",
        "postgresql://postgres@127.0.0.1:" + deadPort + "/updraft"));
    try {
      Http admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      String app = "key-use-unknown";
      assertThat(admin.post("/v1/apps", key("main", Files.readString(Fixtures.certificatePem()),
          Files.readString(Fixtures.privateKeyPkcs1Pem())).put("appId", app)).status()).isEqualTo(201);
      TestCertificates.Issued next = TestCertificates.selfSigned("Updraft key use k2", Duration.ofDays(400));
      assertThat(admin.put("/v1/apps/" + app + "/signing-key", key("k2", next.certificatePem(), next.privateKeyPem())).status())
          .isEqualTo(200);

      Http.Resp unknown = admin.delete("/v1/apps/" + app + "/keys/k2");
      assertThat(unknown.status()).as(unknown.toString()).isEqualTo(503);
      assertThat(unknown.errorCode()).isEqualTo("key-use-unknown");
      assertThat(unknown.json().get("error").get("message").asText())
          .contains("keyid k2", "127.0.0.1:" + deadPort + "/updraft", "?force=true");
      Http.Resp usage = admin.get("/v1/apps/" + app + "/key-usage");
      assertThat(usage.status()).as(usage.toString()).isEqualTo(200);
      assertThat(usage.json().get("known").asBoolean()).isFalse();
      assertThat(usage.json().get("reason").asText()).isEqualTo("telemetry-database-unavailable");
      assertThat(usage.json().get("message").asText()).contains("127.0.0.1:" + deadPort + "/updraft");
      assertThat(usage.json().get("items")).extracting(k -> k.get("keyId").asText()).containsExactly("main", "k2");
      assertThat(usage.json().get("items")).allMatch(k -> k.get("devices").isNull() && k.get("lastAskedAt").isNull());
      Http.Resp bad = admin.delete("/v1/apps/" + app + "/keys/k2?force=yes");
      assertThat(bad.status()).isEqualTo(400);
      assertThat(bad.errorCode()).isEqualTo("invalid-parameter");
      assertThat(admin.get("/v1/apps/" + app + "/keys").json().get("items")).extracting(k -> k.get("keyId").asText())
          .containsExactly("main", "k2");

      Http.Resp forced = admin.delete("/v1/apps/" + app + "/keys/k2?force=true");
      assertThat(forced.status()).as(forced.toString()).isEqualTo(200);
      assertThat(forced.json().get("items")).extracting(k -> k.get("keyId").asText()).containsExactly("main");
      List<EventEnvelope> events = TestSupport.events(infra, app);
      assertThat(events.get(events.size() - 1).payload()).isEqualTo(new SigningKeyRetired("k2", true, null, null));
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }
}
