package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.S3Flags;
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
    assertThat(c.replicationFactor()).as("unset: chosen from the cluster's size").isZero();
    assertThat(c.minInsyncReplicas()).as("unset: min(2, replication factor)").isZero();
    assertThat(c.toString()).doesNotContain(TOKEN);
  }

  @Test
  void metricsArePublicOnTheControlPortUnlessATokenOrAPortIsGiven() {
    assertThat(withFlags().metrics().protectedByToken()).isFalse();
    assertThat(withFlags().metrics().separatePort()).isFalse();
    ControlPlaneConfig c = withFlags("metrics-token", "scrape-secret-0123456789", "metrics-port", "9464");
    assertThat(c.metrics().allows("Bearer scrape-secret-0123456789")).isTrue();
    assertThat(c.metrics().allows("Bearer " + TOKEN)).as("the admin token is not the metrics token").isFalse();
    assertThat(c.metrics().port()).isEqualTo(9464);
    assertThat(c.toString()).doesNotContain("scrape-secret").contains("token=<redacted>");
    assertThatThrownBy(() -> withFlags("metrics-token", "short")).hasMessageContaining("--metrics-token");
  }

  @Test
  void theCommandWarmupIsThreeSecondsAtMostByDefaultAndZeroSecondsSkipsIt() {
    assertThat(withFlags().commandWarmup()).isEqualTo(java.time.Duration.ofSeconds(3));
    assertThat(withFlags("command-warmup", "0s").commandWarmup()).isZero();
    assertThatThrownBy(() -> withFlags("command-warmup", "0")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--command-warmup").hasMessageContaining("'0'");
    assertThatThrownBy(() -> withFlags("command-warmup", "2m")).isInstanceOf(ConfigException.class).hasMessageContaining("--command-warmup");
  }

  @Test
  void replicationFlagsAreWholeNumbersAndTheInSyncCountNoMoreThanTheFactor() {
    ControlPlaneConfig c = withFlags("replication-factor", "3", "min-insync-replicas", "2");
    assertThat(c.replicationFactor()).isEqualTo(3);
    assertThat(c.minInsyncReplicas()).isEqualTo(2);
    assertThat(withFlags("min-insync-replicas", "1").replicationFactor()).isZero();
    assertThatThrownBy(() -> withFlags("replication-factor", "0")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--replication-factor");
    assertThatThrownBy(() -> withFlags("replication-factor", "three")).hasMessageContaining("--replication-factor");
    assertThatThrownBy(() -> withFlags("replication-factor", "1", "min-insync-replicas", "2"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--min-insync-replicas")
        .hasMessageContaining("2 > 1");
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

  @Test
  void s3StorageReadsItsFlagsAndEnvironmentAndRefusesBadValuesNamingTheFlag() {
    ControlPlaneConfig c =
        ControlPlaneConfig.from(
            Settings.of(
                Map.of("admin-token", TOKEN, "storage", "s3"),
                Map.of("UPDRAFT_S3_BUCKET", "updates", "UPDRAFT_S3_ENDPOINT", "https://abc.r2.cloudflarestorage.com/", "UPDRAFT_S3_REGION", "auto",
                    "UPDRAFT_S3_PATH_STYLE", "true", "UPDRAFT_S3_PRESIGN_TTL", "12h")));
    assertThat(c.storage()).isEqualTo(ControlPlaneConfig.StorageKind.S3);
    assertThat(c.s3()).isEqualTo(new S3Flags("updates", java.net.URI.create("https://abc.r2.cloudflarestorage.com"), "auto", true, null, Duration.ofHours(12)));
    ControlPlaneConfig cdn = withFlags("storage", "s3", "s3-bucket", "updates", "s3-public-base-url", "https://cdn.example.com/");
    assertThat(cdn.s3().publicBaseUrl()).isEqualTo("https://cdn.example.com");
    assertThat(cdn.s3().presignTtl()).as("default").isEqualTo(Duration.ofDays(7));
    assertThat(cdn.s3().endpoint()).as("AWS itself").isNull();
    assertThat(ControlPlaneConfig.FLAGS).containsAll(ControlPlaneConfig.STORAGE_FLAGS);
    // a flag naming a file that holds a secret (--oidc-client-secret-file) carries a path, not the secret
    assertThat(ControlPlaneConfig.FLAGS).as("no credentials among the flags")
        .noneMatch(f -> (f.contains("secret") && !f.endsWith("-file")) || f.contains("access-key"));

    assertThatThrownBy(() -> withFlags("storage", "s3")).isInstanceOf(ConfigException.class).hasMessageContaining("--s3-bucket (UPDRAFT_S3_BUCKET) is required");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "Bad_Bucket")).hasMessageContaining("--s3-bucket").hasMessageContaining("Bad_Bucket");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-presign-ttl", "8d")).hasMessageContaining("--s3-presign-ttl").hasMessageContaining("7d");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-presign-ttl", "5s")).hasMessageContaining("--s3-presign-ttl");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-endpoint", "minio:9000")).hasMessageContaining("--s3-endpoint");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-endpoint", "http://minio:9000/b12")).hasMessageContaining("without a path");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-path-style", "maybe")).hasMessageContaining("--s3-path-style");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "s3-region", "EU West")).hasMessageContaining("--s3-region");
    assertThatThrownBy(() -> withFlags("s3-bucket", "b12")).hasMessageContaining("need --storage s3");
    assertThatThrownBy(() -> withFlags("storage", "s3", "s3-bucket", "b12", "gcs-bucket", "g")).hasMessageContaining("need --storage gcs");
  }

  @Test
  void theEdgeImageIsOffWithoutAKeyAndItsKeyIsNeverShown() {
    assertThat(withFlags().edgeImage().on()).as("off by default").isFalse();
    String key = java.util.Base64.getEncoder().encodeToString(new byte[32]);
    ControlPlaneConfig c = withFlags("edge-image-key", key, "edge-image-interval", "30s", "edge-image-keep", "5");
    assertThat(c.edgeImage().on()).isTrue();
    assertThat(c.edgeImage().interval()).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(c.edgeImage().keep()).isEqualTo(5);
    assertThat(withFlags("edge-image-key", key).edgeImage().interval()).isEqualTo(java.time.Duration.ofMinutes(1));
    assertThat(c.edgeImage().toString()).doesNotContain(key);
    assertThatThrownBy(() -> withFlags("edge-image-key", "c2hvcnQ=")).hasMessageContaining("--edge-image-key").hasMessageContaining("32 bytes");
    assertThatThrownBy(() -> withFlags("edge-image-key", key, "edge-image-interval", "100ms")).hasMessageContaining("--edge-image-interval");
    assertThatThrownBy(() -> withFlags("edge-image-key", key, "edge-image-keep", "1")).hasMessageContaining("edge-image-keep");
  }

  static ControlPlaneConfig withFlags(String... kv) {
    Map<String, String> m = new java.util.HashMap<>();
    m.put("admin-token", TOKEN);
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return ControlPlaneConfig.from(Settings.of(m, Map.of()));
  }

  @Test
  void tlsNeedsBothReadableFilesAndAKeyThatMatchesTheCertificate(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.security.KeyPair kp = TestCerts.rsa();
    java.nio.file.Path cert = java.nio.file.Files.writeString(dir.resolve("cert.pem"), TestCerts.tlsServer(kp));
    java.nio.file.Path key = java.nio.file.Files.writeString(dir.resolve("key.pem"), TestCerts.pem(kp.getPrivate()));
    java.nio.file.Path otherKey = java.nio.file.Files.writeString(dir.resolve("other.pem"), TestCerts.pem(TestCerts.rsa().getPrivate()));
    java.nio.file.Path garbage = java.nio.file.Files.writeString(dir.resolve("garbage.pem"), "not a certificate");

    ControlPlaneConfig off = withFlags();
    assertThat(off.tls()).isFalse();
    assertThat(off.corsOrigins()).isEmpty();
    ControlPlaneConfig on = withFlags("tls-cert", cert.toString(), "tls-key", key.toString());
    assertThat(on.tls()).isTrue();
    assertThat(on.tlsCert()).isEqualTo(cert);
    // from the environment too
    ControlPlaneConfig env =
        ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN), Map.of("UPDRAFT_TLS_CERT", cert.toString(), "UPDRAFT_TLS_KEY", key.toString())));
    assertThat(env.tlsKey()).isEqualTo(key);

    assertThatThrownBy(() -> withFlags("tls-cert", cert.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--tls-key").hasMessageContaining("go together");
    assertThatThrownBy(() -> withFlags("tls-key", key.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("only --tls-key was given");
    assertThatThrownBy(() -> withFlags("tls-cert", dir.resolve("missing.pem").toString(), "tls-key", key.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--tls-cert").hasMessageContaining("does not exist");
    assertThatThrownBy(() -> withFlags("tls-cert", dir.toString(), "tls-key", key.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("not a regular file");
    assertThatThrownBy(() -> withFlags("tls-cert", garbage.toString(), "tls-key", key.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--tls-cert").hasMessageContaining("no PEM certificate");
    assertThatThrownBy(() -> withFlags("tls-cert", key.toString(), "tls-key", key.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("is it the key file?");
    assertThatThrownBy(() -> withFlags("tls-cert", cert.toString(), "tls-key", cert.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--tls-key").hasMessageContaining("not a usable private key");
    assertThatThrownBy(() -> withFlags("tls-cert", cert.toString(), "tls-key", otherKey.toString()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("does not match the certificate");
    java.nio.file.Path unreadable = java.nio.file.Files.writeString(dir.resolve("unreadable.pem"), TestCerts.pem(kp.getPrivate()));
    java.nio.file.Files.setPosixFilePermissions(unreadable, java.util.Set.of());
    if (!java.nio.file.Files.isReadable(unreadable)) { // root reads anything
      assertThatThrownBy(() -> withFlags("tls-cert", cert.toString(), "tls-key", unreadable.toString()))
          .isInstanceOf(ConfigException.class).hasMessageContaining("--tls-key").hasMessageContaining("cannot be read");
    }
    assertThat(on.toString()).doesNotContain("PRIVATE KEY");
  }

  @Test
  void corsOriginsAreExactOriginsOrTheStartFails() {
    assertThat(withFlags("cors-origin", "https://console.example.com, http://127.0.0.1:3000,https://console.example.com").corsOrigins())
        .containsExactly("https://console.example.com", "http://127.0.0.1:3000");
    assertThat(ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN), Map.of("UPDRAFT_CORS_ORIGIN", "https://a.example"))).corsOrigins())
        .containsExactly("https://a.example");
    for (String bad : new String[] {"*", "https://a.example/", "https://a.example/path", "console.example.com", "ftp://a.example", "https://A.example"}) {
      assertThatThrownBy(() -> withFlags("cors-origin", bad)).as(bad)
          .isInstanceOf(ConfigException.class).hasMessageContaining("--cors-origin").hasMessageContaining("UPDRAFT_CORS_ORIGIN");
    }
  }

  @Test
  void refusesConfigurationsThatBakeUnreachableAssetUrlsIntoManifests() {
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(
            Map.of("admin-token", TOKEN, "public-url", "https://edge.example.com", "edge-public-url", "https://edge.example.com/"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--public-url").hasMessageContaining("--edge-public-url");
    assertThatThrownBy(() -> ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "edge-public-url", "https://edge.example.com"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("needs --public-url");
    ControlPlaneConfig ok = ControlPlaneConfig.from(Settings.of(
        Map.of("admin-token", TOKEN, "public-url", "https://cp.example.com", "edge-public-url", "https://edge.example.com/"), Map.of()));
    assertThat(ok.edgePublicUrl()).isEqualTo("https://edge.example.com");
    assertThat(ok.patchBases()).isEqualTo(5);
    assertThat(ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN, "bind", "127.0.0.1", "edge-public-url", "http://127.0.0.1:3000"), Map.of()))
        .edgePublicUrl()).isEqualTo("http://127.0.0.1:3000");
  }

  @Test
  void assetEncodingIsBestUnlessFastIsAsked() {
    assertThat(ControlPlaneConfig.from(Settings.of(Map.of("admin-token", TOKEN), Map.of())).fastEncoding()).isFalse();
    assertThat(withFlags("asset-encoding", "best").fastEncoding()).isFalse();
    assertThat(withFlags("asset-encoding", "FAST").fastEncoding()).isTrue();
    assertThatThrownBy(() -> withFlags("asset-encoding", "quick"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--asset-encoding").hasMessageContaining("best, fast");
  }
}
