package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.embedded.Ports;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.testing.TestCa;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --kafka-config} files for AWS MSK IAM and for mTLS are taken by every service's configuration, and
 * a producer, a consumer and an admin client build from them with the classes the distribution ships
 * ({@code aws-msk-iam-auth} on the class path; PEM key stores read at construction). No cluster is reached:
 * construction loads the login module, the callback handler and the key material, which is where a missing
 * class or an unreadable key fails. Whether MSK accepts the signed authentication rests on the library.
 */
class KafkaClientSecurityTest {
  @TempDir Path dir;

  private Path write(Map<String, String> settings) throws IOException {
    Properties p = new Properties();
    p.putAll(settings);
    Path f = dir.resolve("kafka-" + settings.hashCode() + ".properties");
    try (var w = Files.newBufferedWriter(f)) {
      p.store(w, null);
    }
    return f;
  }

  /** Every service takes the file; each kind of client builds from it and closes. */
  private void buildsEveryClient(Path file) {
    String bootstrap = "127.0.0.1:" + Ports.freePort(); // nothing listens: construction only
    Map<String, String> flags = Map.of("kafka-config", file.toString(), "kafka-bootstrap", bootstrap, "admin-token",
        "a-long-enough-admin-token-0123", "data-dir", dir.resolve("data").toString());
    assertThat(ControlPlaneConfig.from(Settings.of(flags, Map.of())).kafka().file()).isEqualTo(file);
    Map<String, String> edge = new HashMap<>(flags);
    edge.remove("admin-token");
    edge.remove("data-dir");
    assertThat(EdgeConfig.from(Settings.of(edge, Map.of())).kafka().file()).isEqualTo(file);
    assertThat(IngesterConfig.from(Settings.of(edge, Map.of())).kafka().file()).isEqualTo(file);

    KafkaClientConfig k = KafkaClientConfig.load(file);
    Map<String, Object> own = new HashMap<>();
    own.put("bootstrap.servers", bootstrap);
    own.put("client.id", "security-config-test");
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(k.apply(own), new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(k.apply(own), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        Admin a = Admin.create(k.apply(own))) {
      assertThat(p.metrics()).isNotEmpty();
      assertThat(c.metrics()).isNotEmpty();
      assertThat(a.metrics()).isNotEmpty();
    }
  }

  @Test
  void mskIamPropertiesBuildEveryClientWithTheShippedLibrary() throws IOException {
    Path f = write(Map.of(
        "security.protocol", "SASL_SSL",
        "sasl.mechanism", "AWS_MSK_IAM",
        "sasl.jaas.config", "software.amazon.msk.auth.iam.IAMLoginModule required;",
        "sasl.client.callback.handler.class", "software.amazon.msk.auth.iam.IAMClientCallbackHandler"));
    buildsEveryClient(f);
  }

  @Test
  void mutualTlsPropertiesBuildEveryClientFromPemFiles() throws IOException {
    TestCa ca = TestCa.create("config-test");
    TestCa.PemFiles client = ca.client(dir.resolve("certs"), "updraft-edge");
    Path f = write(Map.of(
        "security.protocol", "SSL",
        "ssl.truststore.type", "PEM",
        "ssl.truststore.location", ca.writeRoot(dir.resolve("certs/ca.crt")).toString(),
        "ssl.keystore.type", "PEM",
        "ssl.keystore.location", client.keystore().toString()));
    buildsEveryClient(f);
  }

  @Test
  void everyServiceRefusesAFileThatSetsAKeyTheGuaranteesRestOnNamingIt() throws IOException {
    Path f = write(Map.of("security.protocol", "SASL_SSL", "enable.idempotence", "false"));
    Map<String, String> flags = Map.of("kafka-config", f.toString());
    Map<String, String> cp = new HashMap<>(flags);
    cp.put("admin-token", "a-long-enough-admin-token-0123");
    for (Runnable start : List.<Runnable>of(() -> ControlPlaneConfig.from(Settings.of(cp, Map.of())),
        () -> EdgeConfig.from(Settings.of(flags, Map.of())), () -> IngesterConfig.from(Settings.of(flags, Map.of())))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(start::run)
          .isInstanceOf(dev.updraft.common.ConfigException.class)
          .hasMessageContaining("--kafka-config (UPDRAFT_KAFKA_CONFIG) " + f + " sets enable.idempotence");
    }
  }

  @Test
  void anUnreadableKeyStoreFailsAtConstructionNamingTheFile() throws IOException {
    Path missing = dir.resolve("no-such-keystore.pem");
    Path f = write(Map.of("security.protocol", "SSL", "ssl.keystore.type", "PEM", "ssl.keystore.location", missing.toString()));
    Map<String, Object> own = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:" + Ports.freePort()));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new KafkaProducer<>(KafkaClientConfig.load(f).apply(own), new ByteArraySerializer(), new ByteArraySerializer()).close(Duration.ZERO))
        .hasStackTraceContaining(missing.toString());
  }
}
