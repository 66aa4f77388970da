package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the generator's warm-up goes: by default to a mirror of the discovered answers, not to the target. */
class WarmupTest {
  @TempDir Path dir;

  private static List<TestEdge.Seen> warmups(TestEdge edge) {
    return edge.seen.stream().filter(s -> s.path().endsWith("/manifest") && TestEdge.WARMUP_ID.equals(s.headers().get("eas-client-id")))
        .toList();
  }

  @Test
  void theWarmUpGoesToAMirrorOfTheDiscoveredAnswersAndTheTargetGetsAHandful() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "mirror", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "500ms", "--warmup", "300", "--signature", "--devices", "100");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      // one lane (--event-loops 1): four requests open its connections to the target, the 300 go to the mirror
      assertThat(warmups(edge)).hasSize(4);
      assertThat(o.out()).contains("warm-up: 300 requests per lane to a mirror of the 2 discovered answers");
      // shaped as the run's requests: the signature asked for, devices on the embedded bundle and on the latest update
      for (TestEdge.Seen s : warmups(edge)) {
        assertThat(s.headers().get("expo-expect-signature")).isEqualTo("sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"");
        assertThat(s.headers().get("expo-protocol-version")).isEqualTo("1");
      }
      // (the four requests are the four shapes: iOS and Android, each on its embedded bundle and on its latest update)
      assertThat(warmups(edge).stream().map(s -> s.headers().get("expo-current-update-id")).distinct()).containsExactlyInAnyOrder(
          edge.latest.get("ios")[0], edge.latest.get("android")[0],
          warmups(edge).stream().filter(s -> "ios".equals(s.headers().get("expo-platform"))).map(s -> s.headers().get("expo-embedded-update-id"))
              .findFirst().orElseThrow(),
          warmups(edge).stream().filter(s -> "android".equals(s.headers().get("expo-platform"))).map(s -> s.headers().get("expo-embedded-update-id"))
              .findFirst().orElseThrow());
      // and the run itself is unaffected: every scheduled request was sent to the target
      assertThat(edge.fleetSeen()).hasSize(10);
    }
  }

  @Test
  void withWarmupOnTargetEveryWarmUpRequestGoesToTheTarget() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "target", "--target", edge.url(), "--profile", "constant", "--rate", "20",
          "--duration", "500ms", "--warmup", "300", "--warmup-on", "target", "--devices", "100");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      assertThat(warmups(edge)).hasSize(300);
      assertThat(o.out()).doesNotContain("mirror");
      assertThat(warmups(edge).stream().map(s -> s.headers().get("expo-platform")).distinct()).containsExactlyInAnyOrder("ios", "android");
    }
  }

  @Test
  void anUnknownWarmupPlaceIsAUsageError() throws Exception {
    Runs.Outcome o = Runs.run(dir, "bad", "--target", "http://127.0.0.1:9", "--warmup-on", "edge");
    assertThat(o.exit()).isEqualTo(2);
    assertThat(o.err()).contains("--warmup-on");
  }
}
