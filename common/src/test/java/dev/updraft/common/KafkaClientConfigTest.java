package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {
  @TempDir Path dir;

  private Path file(String... lines) throws IOException {
    Path f = dir.resolve("kafka.properties");
    Files.writeString(f, String.join("\n", lines) + "\n");
    return f;
  }

  @Test
  void readsTheFileGivenByTheFlagOrItsEnvironmentVariable() throws IOException {
    Path f = file("security.protocol=SASL_SSL", "sasl.mechanism = SCRAM-SHA-512", "# a comment");
    KafkaClientConfig byFlag = KafkaClientConfig.from(Settings.of(Map.of("kafka-config", f.toString()), Map.of()));
    KafkaClientConfig byEnv = KafkaClientConfig.from(Settings.of(Map.of(), Map.of("UPDRAFT_KAFKA_CONFIG", f.toString())));
    assertThat(byFlag.settings()).isEqualTo(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512"));
    assertThat(byEnv.settings()).isEqualTo(byFlag.settings());
    assertThat(KafkaClientConfig.from(Settings.of(Map.of(), Map.of())).settings()).isEmpty();
  }

  @Test
  void refusesKeysTheGuaranteesRestOnNamingTheKeyAndTheFile() throws IOException {
    for (String key : new String[] {"acks", "enable.idempotence", "isolation.level", "transactional.id", "value.deserializer",
        "enable.auto.commit", "bootstrap.servers", "interceptor.classes", "partitioner.class", "group.id"}) {
      Path f = file("security.protocol=SSL", key + "=x");
      assertThatThrownBy(() -> KafkaClientConfig.load(f))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--kafka-config (UPDRAFT_KAFKA_CONFIG) " + f)
          .hasMessageContaining("sets " + key + ",");
    }
  }

  @Test
  void refusesAVariableNoProviderResolvesNamingTheKeyButNotTheValues() throws IOException {
    Path noProviders = file("sasl.jaas.config=x password=\"${env:UPDRAFT_TEST_SURELY_UNSET}\";");
    assertThatThrownBy(() -> KafkaClientConfig.load(noProviders))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("${env:UPDRAFT_TEST_SURELY_UNSET} in sasl.jaas.config is not resolved")
        .hasMessageContaining("names no config.providers");
    Path unset = file("config.providers=env", "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider",
        "ssl.key.password=${env:UPDRAFT_TEST_SURELY_UNSET}");
    assertThatThrownBy(() -> KafkaClientConfig.load(unset)).hasMessageContaining("in ssl.key.password is not resolved");
  }

  @Test
  void leavesProviderVariablesForTheClientsToResolve() throws IOException {
    Path secrets = dir.resolve("secrets.properties");
    Files.writeString(secrets, "password=s3cret-value\n");
    Path f = file("config.providers=file", "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider",
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"edge\" password=\"${file:"
            + secrets + ":password}\";");
    KafkaClientConfig c = KafkaClientConfig.load(f);
    assertThat(c.settings().get("sasl.jaas.config")).contains("${file:").doesNotContain("s3cret-value");
    assertThat(c.toString()).contains("sasl.jaas.config").doesNotContain("s3cret-value").doesNotContain("ScramLoginModule");
    // what a Kafka client does with them at construction
    Map<String, Object> seen = new AbstractConfig(new ConfigDef(), c.apply(Map.<String, Object>of("client.id", "x")), false).originals();
    assertThat(seen.get("sasl.jaas.config").toString()).contains("password=\"s3cret-value\"");
  }

  @Test
  void addsTheSettingsToEachClientsOwnPropertiesAndRefusesAnOverlap() throws IOException {
    KafkaClientConfig c = KafkaClientConfig.load(file("security.protocol=SSL", "ssl.truststore.type=PEM"));
    Properties own = new Properties();
    own.put("bootstrap.servers", "127.0.0.1:9092");
    Properties merged = c.apply(own);
    assertThat(merged).containsEntry("security.protocol", "SSL").containsEntry("bootstrap.servers", "127.0.0.1:9092");
    Properties clash = new Properties();
    clash.put("ssl.truststore.type", "JKS");
    assertThatThrownBy(() -> c.apply(clash)).isInstanceOf(IllegalStateException.class).hasMessageContaining("ssl.truststore.type");
  }

  @Test
  void aMissingFileIsAStartErrorNamingIt() {
    Path missing = dir.resolve("nope.properties");
    assertThatThrownBy(() -> KafkaClientConfig.load(missing)).isInstanceOf(ConfigException.class).hasMessageContaining(missing + " cannot be read");
  }
}
