package dev.updraft.systemtests.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft publish} warns, and still publishes, when no device checked in with the runtime version
 * in the last 7 days and no build was registered for it; a device's check-in (through the real edge,
 * Kafka and ingester into PostgreSQL) or a registered build silences it.
 */
@ExtendWith(RealInfrastructure.class)
class OrphanUpdateIT {
  static Stack stack;
  static CliRunner cli;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) {
    stack = Stack.start(infra, dir);
    cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
    cli.json("apps", "create", "orphans");
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  static CliRunner.Result publish(String runtimeVersion) {
    CliRunner.Result r = cli.run("publish", "--app", "orphans", "--branch", "main", "--runtime-version", runtimeVersion,
        "--dist", Fixtures.update1().toString(), "--no-progress");
    assertThat(r.status()).as("the publish succeeds either way: %s", r.err()).isZero();
    return r;
  }

  @Test
  void aRuntimeVersionNoDeviceRunsAndNoBuildHasIsWarnedAboutAndStillPublished() throws Exception {
    assertThat(publish("1.0.0").err()).contains("warning: orphan update?", "runtime version 1.0.0");

    HttpResponse<String> device = HTTP.send(HttpRequest.newBuilder(URI.create(stack.edgeUrl() + "/apps/orphans/manifest"))
        .header("accept", "application/json").header("expo-platform", "ios").header("expo-protocol-version", "1")
        .header("expo-runtime-version", "1.0.0").header("expo-channel-name", "main")
        .header("eas-client-id", UUID.randomUUID().toString()).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(device.statusCode()).isEqualTo(200);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (activityDevices("1.0.0") < 1) {
      assertThat(System.nanoTime()).as("the device's check-in reaches PostgreSQL").isLessThan(deadline);
      Thread.sleep(200);
    }
    assertThat(publish("1.0.0").err()).doesNotContain("orphan");
  }

  @Test
  void aRegisteredBuildSilencesTheWarning() throws Exception {
    assertThat(publish("3.0.0").err()).contains("orphan update?");
    cli.json("builds", "register", "--app", "orphans", "--platform", "android", "--runtime-version", "3.0.0",
        "--embedded-update-id", UUID.randomUUID().toString(), "--bundle", BundlePatchIT.bundlePath(Fixtures.update1(), "android").toString());
    assertThat(cli.json("builds", "list", "--app", "orphans").path("builds")).hasSize(1);
    assertThat(publish("3.0.0").err()).doesNotContain("orphan");
  }

  static long activityDevices(String runtimeVersion) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(stack.controlUrl() + "/v1/apps/orphans/runtime-versions/"
        + runtimeVersion + "/activity")).header("authorization", "Bearer " + Stack.ADMIN_TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).path("devices").asLong(-1);
  }
}
