package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command warm-up on a real control plane ({@code --command-warmup}, on by default; the other tests turn it off):
 * it runs before the control plane listens, shows on {@code /metrics}, appends no event, leaves no key file, and the
 * control plane publishes right after it.
 */
@ExtendWith(RealInfrastructure.class)
class CommandWarmupIT {
  private static final Pattern ROUNDS = Pattern.compile("(?m)^updraft_control_command_warmup_rounds(?:\\{[^}]*})? ([0-9.E]+)$");

  @Test
  void aStartWarmsTheCommandPathWritesNothingAndThenPublishes(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      ControlPlane cp = TestSupport.start(vertx, TestSupport.config(infra, dir, "command-warmup", "10s"));
      try {
        Http h = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
        Matcher m = ROUNDS.matcher(h.get("/metrics").text());
        assertThat(m.find()).as("updraft_control_command_warmup_rounds on /metrics").isTrue();
        assertThat(Double.parseDouble(m.group(1))).as("warm-up rounds").isGreaterThanOrEqualTo(1);
        assertThat(TestSupport.events(infra)).as("the warm-up appends no event").isEmpty();
        assertThat(keyFiles(dir.resolve("keys"))).as("the warm-up's throwaway key is never stored").isEmpty();

        S3StorageIT.createApp(cp, "warm");
        ExportFixture.upload(h, "warm", Fixtures.update1());
        Http.Resp p = h.post("/v1/apps/warm/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
        assertThat(p.status()).as(p.toString()).isEqualTo(201);
        assertThat(keyFiles(dir.resolve("keys"))).as("the app's key only").hasSize(1).allMatch(f -> f.startsWith(dir.resolve("keys/warm")));
        assertThat(TestSupport.events(infra)).extracting(e -> e.appId()).containsOnly("warm");
      } finally {
        TestSupport.await(cp.close());
      }
    } finally {
      TestSupport.await(vertx.close());
    }
  }

  private static List<Path> keyFiles(Path store) throws Exception {
    if (!Files.isDirectory(store)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(store)) {
      return s.filter(Files::isRegularFile).toList();
    }
  }
}
