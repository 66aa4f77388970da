package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ControlPlaneConfigTest {
  static final String TOKEN = "0123456789abcdef";

  @Test
  void hasTheDocumentedDefaults() {
    ControlPlaneConfig c = ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN), Map.of()));
    assertThat(c.kafkaBootstrap()).isEqualTo("127.0.0.1:9092");
    assertThat(c.controlPort()).isEqualTo(8080);
    assertThat(c.bind()).isEqualTo("0.0.0.0");
    assertThat(c.publicUrl()).isNull();
    assertThat(c.storage()).isEqualTo(ControlPlaneConfig.StorageKind.LOCAL);
    assertThat(c.storageDir()).isEqualTo(c.dataDir().resolve("assets"));
    assertThat(c.keyStoreDir()).isEqualTo(c.dataDir().resolve("keys"));
    assertThat(c.transactionalId()).isEqualTo("updraft-control-plane");
    assertThat(c.eventsPartitions()).isEqualTo(3);
    assertThat(c.telemetryPartitions()).isEqualTo(4);
    assertThat(c.telemetryRetention()).isEqualTo(Duration.ofDays(3));
    assertThat(c.authFailureLimit()).isEqualTo(20);
    assertThat(c.authFailureWindow()).isEqualTo(Duration.ofMinutes(1));
    assertThat(c.toString()).doesNotContain(TOKEN);
  }

  @Test
  void readsEnvironmentVariablesAndPrefixesTheTransactionalId() {
    ControlPlaneConfig c =
        ControlPlaneConfig.from(Settings.of(Map.of("topic-prefix", "dev."), Map.of("UPDRAFT_ADMIN_TOKEN", TOKEN, "UPDRAFT_PUBLIC_URL", "https://u.example.com/")));
    assertThat(c.transactionalId()).isEqualTo("dev.updraft-control-plane");
    assertThat(c.publicUrl()).isEqualTo("https://u.example.com");
  }

  @Test
  void rejectsUnknownFlagsByNameUnlessAnExtensionDeclaresThem() {
    Settings s = Settings.of(Map.of("admin-token", TOKEN, "contrl-port", "1"), Map.of());
    assertThatThrownBy(() -> ControlPlaneConfig.from(s)).isInstanceOf(ConfigException.class).hasMessageContaining("--contrl-port");
    Settings ok = Settings.of(Map.of("admin-token", TOKEN, "guard-interval", "1m"), Map.of());
    assertThat(ControlPlaneConfig.from(ok, Set.of("guard-interval"))).isNotNull();
    assertThat(ControlPlaneConfig.FLAGS).contains("kafka-bootstrap", "admin-token", "storage", "master-key", "transactional-id");
  }

  @Test
  void refusesContradictionsAndBadValuesNamingTheFlag() {
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of(), Map.of()))).hasMessageContaining("--admin-token");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", "short"), Map.of()))).hasMessageContaining("at least 16");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "storage", "gcs"), Map.of())))
        .hasMessageContaining("--gcs-bucket");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "storage", "s3"), Map.of())))
        .hasMessageContaining("--storage");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "master-key", "c2hvcnQ="), Map.of())))
        .hasMessageContaining("32 random bytes");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "auth-failure-window", "10ms"), Map.of())))
        .hasMessageContaining("--auth-failure-window");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "public-url", "ftp://x"), Map.of())))
        .hasMessageContaining("--public-url");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "storage", "gcs", "gcs-bucket", "b", "gcs-signed-url-ttl", "8d"), Map.of())))
        .hasMessageContaining("7d");
  }
}
