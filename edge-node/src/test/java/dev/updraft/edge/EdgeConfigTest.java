package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EdgeConfigTest {

  private static EdgeConfig from(String... args) {
    return EdgeConfig.from(Settings.parse(args, Map.of()));
  }

  @Test
  void defaultsMatchTheArchitecture() {
    EdgeConfig c = EdgeConfig.from(Settings.of(Map.of("edge-id", "e1"), Map.of()));
    assertThat(c.kafkaBootstrap()).isEqualTo("127.0.0.1:9092");
    assertThat(c.topicPrefix()).isEmpty();
    assertThat(c.port()).isEqualTo(3000);
    assertThat(c.bind()).isEqualTo("0.0.0.0");
    assertThat(c.checkins()).isTrue();
    assertThat(c.accessLogSample()).isZero();
    assertThat(c.recordRequests()).isNull();
    assertThat(c.recordSampleRate()).isEqualTo(0.01);
    assertThat(c.idleTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(c.checkinProducerBuffer()).isEqualTo(64L << 20);
    assertThat(c.headerTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void readsEveryFlag() {
    EdgeConfig c = from("--kafka-bootstrap", "k:1", "--topic-prefix", "p.", "--edge-port", "3001", "--bind", "127.0.0.1",
        "--edge-id", "e2", "--checkins", "false", "--checkin-buffer", "10", "--event-loops", "3", "--access-log", "0.5",
        "--record-requests", "/tmp/r.jsonl", "--record-sample-rate", "1", "--idle-timeout", "5s", "--max-header-size", "4096", "--header-timeout", "3s",
        "--checkin-producer-buffer", "262144", "--patch-cache-bytes", "1048576", "--checkin-format", "json",
        "--warmup-requests", "500", "--warmup-timeout", "2s", "--warmup-until-flat", "false", "--data-dir", "/tmp/edge",
        "--image-interval", "10s", "--stored-image-after", "2s", "--max-stale", "1h",
        "--metrics-token", "scrape-secret-0123456789", "--metrics-port", "9464", "--drain", "7s");
    assertThat(c).isEqualTo(new EdgeConfig("k:1", KafkaClientConfig.none(), "p.", 3001, "127.0.0.1", "e2", false, 10, 3, 0.5,
        Path.of("/tmp/r.jsonl"), 1.0, Duration.ofSeconds(5), 4096, Duration.ofSeconds(3), 262144, 1048576, false, 500,
        Duration.ofSeconds(2), false, Path.of("/tmp/edge"), Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofHours(1), null, c.metrics(),
        c.addressBuckets(), Duration.ofSeconds(7)));
    assertThat(from("--edge-id", "x").drain()).as("a short drain on SIGTERM by default").isEqualTo(Duration.ofSeconds(5));
    assertThat(from("--edge-id", "x").maxStale()).as("no age limit by default").isNull();
    assertThat(from("--edge-id", "x", "--max-stale", "unlimited").maxStale()).isNull();
    assertThat(from("--edge-id", "x").dataDir()).as("nothing stored by default").isNull();
    assertThatThrownBy(() -> from("--max-stale", "10ms")).hasMessageContaining("--max-stale must be at least 1s");
    assertThat(c.metrics().allows("Bearer scrape-secret-0123456789")).isTrue();
    assertThat(c.metrics().allows(null)).isFalse();
    assertThat(c.metrics().port()).isEqualTo(9464);
    assertThat(c.toString()).doesNotContain("scrape-secret");
    assertThat(from("--edge-id", "x").metrics()).as("public on the edge port by default").isEqualTo(dev.updraft.common.MetricsAccess.OPEN);
    assertThatThrownBy(() -> from("--edge-port", "3001", "--metrics-port", "3001")).hasMessageContaining("--metrics-port must differ");
    assertThat(from("--edge-id", "x").warmupUntilFlat()).as("the warm-up stops when flat by default").isTrue();
    assertThat(from("--edge-id", "x").checkinCompact()).as("compact by default").isTrue();
    assertThatThrownBy(() -> from("--checkin-format", "xml")).hasMessageContaining("--checkin-format must be compact or json");
    assertThat(from("--access-log", "on", "--edge-id", "x").accessLogSample()).isEqualTo(1.0);
  }

  @Test
  void environmentVariablesWorkAndFlagsWin() {
    EdgeConfig c = EdgeConfig.from(Settings.parse(new String[] {"--edge-port", "3005"},
        Map.of("UPDRAFT_EDGE_PORT", "3006", "UPDRAFT_EDGE_ID", "env-edge")));
    assertThat(c.port()).isEqualTo(3005);
    assertThat(c.edgeId()).isEqualTo("env-edge");
  }

  @Test
  void anImageSourceNeedsTheControlPlanesKeyAndNeverShowsIt() {
    String key = java.util.Base64.getEncoder().encodeToString(new byte[32]);
    EdgeConfig c = from("--edge-id", "x", "--image-source", "s3://updates/edge-images/", "--image-s3-endpoint", "http://127.0.0.1:9000",
        "--image-s3-region", "eu-west-1", "--edge-image-key", key);
    assertThat(c.imageSource().location()).isEqualTo("s3://updates/edge-images/");
    assertThat(c.imageSource().s3Endpoint()).isEqualTo("http://127.0.0.1:9000");
    assertThat(c.imageSource().s3Region()).isEqualTo("eu-west-1");
    assertThat(c.imageSource().toString()).contains("s3://updates/edge-images/").doesNotContain(key);
    assertThat(from("--edge-id", "x").imageSource()).as("none by default").isNull();
    assertThatThrownBy(() -> from("--edge-id", "x", "--image-source", "/srv/images")).hasMessageContaining("--edge-image-key");
    assertThatThrownBy(() -> from("--edge-id", "x", "--image-source", "/srv/images", "--edge-image-key", "c2hvcnQ="))
        .hasMessageContaining("--edge-image-key").hasMessageContaining("32 bytes");
    assertThatThrownBy(() -> from("--edge-id", "x", "--image-s3-region", "eu-west-1")).hasMessageContaining("--image-source");
    assertThatThrownBy(() -> from("--edge-id", "x", "--image-source", "s3://b/p", "--edge-image-key", key, "--image-s3-endpoint", "minio:9000"))
        .hasMessageContaining("--image-s3-endpoint");
  }

  @Test
  void rejectsUnknownFlagsByName() {
    assertThatThrownBy(() -> from("--edge-prot", "3000"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--edge-prot");
  }

  @Test
  void rejectsBadValuesNamingTheFlag() {
    assertThatThrownBy(() -> from("--access-log", "2")).hasMessageContaining("--access-log");
    assertThatThrownBy(() -> from("--record-requests", "f", "--record-sample-rate", "0")).hasMessageContaining("--record-sample-rate");
    assertThatThrownBy(() -> from("--record-sample-rate", "0.5")).hasMessageContaining("needs --record-requests");
    assertThatThrownBy(() -> from("--checkin-buffer", "0")).hasMessageContaining("--checkin-buffer");
    assertThatThrownBy(() -> from("--edge-port", "70000")).hasMessageContaining("--edge-port");
    assertThatThrownBy(() -> from("--checkin-producer-buffer", "1000")).hasMessageContaining("--checkin-producer-buffer");
    assertThatThrownBy(() -> from("--header-timeout", "10ms")).hasMessageContaining("--header-timeout");
  }

  @Test
  void flagsListIsWhatFromAccepts() {
    for (String flag : EdgeConfig.FLAGS) {
      assertThat(flag).doesNotStartWith("-");
    }
    assertThat(EdgeConfig.FLAGS).contains("kafka-bootstrap", "topic-prefix", "edge-port", "bind", "edge-id", "checkins",
        "checkin-buffer", "event-loops", "access-log", "record-requests", "record-sample-rate");
  }
}
