package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private keys are never stored in clear unless an operator says so: a control plane without
 * {@code --master-key} refuses to store a signing key (409 {@code master-key-required}, nothing written,
 * nothing appended) and warns at start that keys will be refused; with {@code --allow-plaintext-keys} it stores
 * them in clear and warns at start that it does; with a master key the file on disk is sealed.
 */
@ExtendWith(RealInfrastructure.class)
class PlaintextKeysIT {

  @Test
  void withoutAMasterKeyKeysAreRefusedUnlessPlaintextIsAllowedAndEachStartSaysSo(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    String body = CliRun.JSON.writeValueAsString(Map.of("certificatePem", Files.readString(Fixtures.certificatePem()),
        "privateKeyPem", Files.readString(Fixtures.privateKeyPkcs8Pem()), "keyId", "main"));
    try {
      // no master key, no permission: refused, nothing on disk, and the start said why
      String startLog;
      ControlPlane refusing;
      try (LogCapture logs = LogCapture.capture()) {
        refusing = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("refusing"), "master-key", null);
        startLog = logs.text();
      }
      assertThat(startLog).contains("WARN").contains("no --master-key").contains("409 master-key-required");
      String base = "http://127.0.0.1:" + refusing.port();
      assertThat(Api.post(base + "/v1/apps", Services.ADMIN, "{\"appId\":\"clear1\"}").status()).isEqualTo(201);
      Api.Resp refused = Api.send("PUT", base + "/v1/apps/clear1/signing-key", Services.ADMIN, body, Map.of());
      assertThat(refused.status()).as(refused.toString()).isEqualTo(409);
      assertThat(refused.errorCode()).isEqualTo("master-key-required");
      assertThat(refused.json().path("error").path("message").asText()).contains("--master-key", "--allow-plaintext-keys", "clear1");
      assertThat(files(dir.resolve("refusing").resolve("keys"))).as("nothing written").isEmpty();
      assertThat(Api.get(base + "/v1/apps/clear1/keys", Services.ADMIN).json().path("items")).as("no key registered").isEmpty();
      Services.await(refusing.close());

      // plaintext allowed: stored in clear, and the start says so
      ControlPlane clear;
      try (LogCapture logs = LogCapture.capture()) {
        clear = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("clear"), "allow-plaintext-keys", "true");
        startLog = logs.text();
      }
      assertThat(startLog).contains("WARN").contains("IN CLEAR").contains(dir.resolve("clear").resolve("keys").toString());
      base = "http://127.0.0.1:" + clear.port();
      Api.Resp stored = Api.send("PUT", base + "/v1/apps/clear1/signing-key", Services.ADMIN, body, Map.of());
      assertThat(stored.status()).as(stored.toString()).isBetween(200, 201);
      List<Path> clearFiles = files(dir.resolve("clear").resolve("keys"));
      assertThat(clearFiles).hasSize(1);
      assertThat(Files.readString(clearFiles.get(0), StandardCharsets.US_ASCII)).startsWith("-----BEGIN PRIVATE KEY-----");
      Services.await(clear.close());

      // a master key (the tests' default): sealed on disk
      ControlPlane sealed = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("sealed"));
      base = "http://127.0.0.1:" + sealed.port();
      assertThat(Api.post(base + "/v1/apps", Services.ADMIN, "{\"appId\":\"sealed1\"}").status()).isEqualTo(201);
      assertThat(Api.send("PUT", base + "/v1/apps/sealed1/signing-key", Services.ADMIN, body, Map.of()).status()).isBetween(200, 201);
      List<Path> sealedFiles = files(dir.resolve("sealed").resolve("keys"));
      assertThat(sealedFiles).hasSize(1);
      assertThat(Files.readString(sealedFiles.get(0), StandardCharsets.ISO_8859_1)).doesNotContain("BEGIN").doesNotContain("PRIVATE KEY");
      Services.await(sealed.close());
      System.out.println("plaintext keys: refused (409 master-key-required) without --master-key, stored in clear only with"
          + " --allow-plaintext-keys, sealed with a master key; each start without a master key warned");
    } finally {
      Services.await(vertx.close());
    }
  }

  private static List<Path> files(Path root) throws Exception {
    if (!Files.exists(root)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
