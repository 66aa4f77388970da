package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.embedded.Ports;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft keys usage} on a control plane whose telemetry database cannot be used (nothing listens at
 * --postgres-url): the command succeeds and says the asks are unknown and why, per key, instead of failing.
 */
@ExtendWith(RealInfrastructure.class)
class KeyUsageUnknownCliIT {
  @Test
  void keysUsageSaysTheAsksAreUnknownWhenTheTelemetryDatabaseIsDown(Infra infra, @TempDir Path dir) throws Exception {
    int deadPort = Ports.freePort(); // nothing listens there
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = Services.controlPlane(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("cp"), "postgres-url",
        "postgresql://postgres@127.0.0.1:" + deadPort + "/updraft");
    try {
      String base = "http://127.0.0.1:" + cp.port();
      CliRun.ok(base, Services.ADMIN, "apps", "create", "usage-unknown", "--certificate", Fixtures.certificatePem().toString(),
          "--private-key", Fixtures.privateKeyPkcs8Pem().toString());
      CliRun r = CliRun.run(base, Services.ADMIN, "keys", "usage", "--app", "usage-unknown");
      assertThat(r.status()).as(r.err()).isZero();
      assertThat(r.out()).contains("asks unknown (telemetry-database-unavailable)", "127.0.0.1:" + deadPort + "/updraft")
          .containsPattern("(?m)^main +devices unknown$");
    } finally {
      Services.await(cp.close());
      Services.await(vertx.close());
    }
  }
}
