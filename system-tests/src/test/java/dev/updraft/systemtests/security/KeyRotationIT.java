package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating an app's code-signing key through the CLI ({@code updraft keys generate}, {@code keys register
 * --key-id}, {@code keys certificate}, {@code keys list}, {@code keys retire}) with a real edge serving
 * devices: afterwards the same manifests (byte for byte, same update ids: re-signed, not republished) and the
 * {@code noUpdateAvailable} directive carry {@code keyid} of the new key and a signature that verifies with
 * the new certificate and not with the old one, for devices asking for the new keyid. A device still asking
 * for the old keyid (an app binary embedding the old certificate) keeps getting the old key's signature,
 * which it verifies: the key ring signs with both until the old key is retired, after which that device is
 * refused (400 naming the keys). Before the key ring the edge signed with the new key only, stranding such
 * binaries; that expectation changed on purpose.
 */
@ExtendWith(RealInfrastructure.class)
class KeyRotationIT {
  static final String APP = "rotating";

  @Test
  void registeringANewKeyReSignsWhatDevicesAreServedWithIt(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    // with the telemetry database the key-in-use check reads; no ingester runs, so no ask is stored and the retire goes through
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"), "postgres-url",
        "postgresql://" + infra.pgUser() + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database());
    EdgeNode edge = null;
    try {
      String base = "http://127.0.0.1:" + cp.port();
      CliRun.ok(base, Services.ADMIN, "apps", "create", APP, "--certificate", Fixtures.certificatePem().toString(),
          "--private-key", Fixtures.privateKeyPkcs8Pem().toString());
      String mainId = Publishing.updateIds(Publishing.publish(base, APP, "main", 1)).get(0);
      String betaId = Publishing.updateIds(Publishing.publish(base, APP, "beta", 2)).get(0);
      edge = Services.readyEdge(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), "rotation-edge");
      int port = edge.port();
      EdgeNode e = edge;
      Services.until("the edge serves " + mainId, () -> e.ready() && mainId.equals(ask(port, "main", "main", null).id()), Duration.ofSeconds(60));
      SignatureVerifier oldCert = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());

      SignedDevice.Answer before = ask(port, "main", "main", null);
      assertThat(before.signature().keyId()).isEqualTo("main");
      assertThat(oldCert.verify(before.body(), before.signature())).as("signed with the fixture key before").isTrue();
      SignedDevice.Answer betaBefore = ask(port, "beta", "main", null);
      assertThat(betaBefore.id()).isEqualTo(betaId);

      // the rotation, as an operator does it
      Path k2 = dir.resolve("k2");
      CliRun gen = CliRun.run(base, null, "keys", "generate", "--out", k2.toString(), "--common-name", "Rotation test k2");
      assertThat(gen.status()).as(gen.err()).isZero();
      assertThat(gen.out()).contains("updraft keys register --app APP");
      JsonNode reg = CliRun.ok(base, Services.ADMIN, "keys", "register", "--app", APP, "--certificate", k2.resolve("certificate.pem").toString(),
          "--private-key", k2.resolve("private-key.pem").toString(), "--key-id", "k2");
      assertThat(reg.path("keyId").asText()).isEqualTo("k2");
      CliRun served = CliRun.run(base, Services.ADMIN, "keys", "certificate", "--app", APP);
      assertThat(served.status()).as(served.err()).isZero();
      assertThat(served.out().replace("\r", "")).isEqualTo(Files.readString(k2.resolve("certificate.pem")).replace("\r", ""));
      SignatureVerifier newCert = SignatureVerifier.fromCertificatePem(k2.resolve("certificate.pem"));

      long t0 = System.nanoTime();
      // until the edge has the new key, a device asking for k2 is refused (unknown-key-id)
      Services.until("the edge signs with k2", () -> SignedDevice.status(port, APP, "main", "k2") == 200, Duration.ofSeconds(60));
      long swapMs = (System.nanoTime() - t0) / 1_000_000;

      int checked = 0;
      for (String[] c : new String[][] {{"main", mainId}, {"beta", betaId}}) {
        SignedDevice.Answer a = ask(port, c[0], "k2", null);
        assertThat(a.part()).isEqualTo("manifest");
        assertThat(a.id()).as("the same update, not a republish").isEqualTo(c[1]);
        ExpoSignature sig = a.signature();
        assertThat(sig.keyId()).isEqualTo("k2");
        assertThat(sig.alg()).isEqualTo(ExpoSignature.RSA_SHA256);
        assertThat(newCert.verify(a.body(), sig)).as("%s verifies with the new certificate", c[0]).isTrue();
        assertThat(oldCert.verify(a.body(), sig)).as("%s no longer verifies with the old one", c[0]).isFalse();
        checked++;
      }
      SignedDevice.Answer mainAfter = ask(port, "main", "k2", null);
      assertThat(mainAfter.body()).as("the manifest body is unchanged, byte for byte").isEqualTo(before.body());
      assertThat(ask(port, "beta", "k2", null).body()).isEqualTo(betaBefore.body());

      // a device already running the update: the noUpdateAvailable directive, signed with the new key too
      SignedDevice.Answer none = ask(port, "main", "k2", mainId);
      assertThat(none.part()).isEqualTo("directive");
      assertThat(none.type()).isEqualTo("noUpdateAvailable");
      assertThat(none.signature().keyId()).isEqualTo("k2");
      assertThat(newCert.verify(none.body(), none.signature())).isTrue();
      assertThat(oldCert.verify(none.body(), none.signature())).isFalse();

      // a binary that still embeds the old certificate asks for keyid "main": it gets the old key's signature,
      // which it verifies, until the old key is retired
      SignedDevice.Answer old = ask(port, "main", "main", null);
      assertThat(old.signature().keyId()).isEqualTo("main");
      assertThat(oldCert.verify(old.body(), old.signature())).isTrue();
      assertThat(newCert.verify(old.body(), old.signature())).isFalse();
      assertThat(old.body()).isEqualTo(before.body());
      CliRun listed = CliRun.run(base, Services.ADMIN, "keys", "list", "--app", APP);
      assertThat(listed.status()).as(listed.err()).isZero();
      assertThat(listed.out().lines().map(l -> l.split("\\s+")[0]).toList()).containsExactly("main", "k2");
      assertThat(listed.out()).contains("notAfter ").contains("primary");
      CliRun retired = CliRun.run(base, Services.ADMIN, "keys", "retire", "--app", APP, "--key-id", "main");
      assertThat(retired.status()).as(retired.err()).isZero();
      Services.until("the edge refuses keyid main", () -> SignedDevice.status(port, APP, "main", "main") == 400, Duration.ofSeconds(60));
      assertThat(ask(port, "main", "k2", null).signature().keyId()).isEqualTo("k2");
      CliRun last = CliRun.run(base, Services.ADMIN, "keys", "retire", "--app", APP, "--key-id", "k2");
      assertThat(last.status()).as("the last key is never retired").isNotZero();
      assertThat(last.err()).contains("last-key");

      // the key store holds both keys (sealed with the master key), each in its file, readable by its owner only
      Path keys = dir.resolve("cp").resolve("keys");
      List<String> keyFiles = new ArrayList<>();
      try (Stream<Path> s = Files.walk(keys)) {
        for (Path p : (Iterable<Path>) s::iterator) {
          assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).as("%s", p)
              .isEqualTo(Files.isDirectory(p) ? "rwx------" : "rw-------");
          if (Files.isRegularFile(p)) {
            keyFiles.add(keys.relativize(p).toString());
          }
        }
      }
      assertThat(keyFiles).hasSize(2).allMatch(f -> f.matches(APP + "/[0-9a-f]{64}\\.key"));

      System.out.printf("key rotation: keys generate + keys register --key-id k2 through the CLI; the edge signed with k2 within %d ms;"
          + " %d manifests and the noUpdateAvailable directive verify with the new certificate only, bodies unchanged; a device"
          + " asking for keyid main keeps its own key's signature until main is retired%n", swapMs, checked);
    } finally {
      if (edge != null) {
        Services.await(edge.close());
      }
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }

  private static SignedDevice.Answer ask(int port, String channel, String keyId, String currentId) {
    return SignedDevice.ask(port, APP, channel, UUID.randomUUID().toString(), keyId, currentId);
  }
}
