package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.embedded.Ports;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DevConfigTest {

  @TempDir Path tmp;

  private static final String PG_URL = "postgresql://updraft@127.0.0.1:5432/updraft";
  private static final String TOKEN = "dev-admin-token-0123456789abcdef";

  private static DevConfig parse(String... args) {
    return DevConfig.from(Settings.parse(args, Map.of()));
  }

  @Test
  void defaultsMatchTheDocumentedPortsAndDataDir() {
    DevConfig c = parse();
    assertThat(c.controlPort()).isEqualTo(8080);
    assertThat(c.edgePort()).isEqualTo(3000);
    assertThat(c.publicUrl()).isEqualTo("http://127.0.0.1:8080");
    assertThat(c.dataDir()).isEqualTo(Path.of(".updraft").toAbsolutePath().normalize());
  }

  @Test
  void publicUrlFollowsTheControlPortUnlessGiven() {
    assertThat(parse("--control-port", "9090").publicUrl()).isEqualTo("http://127.0.0.1:9090");
    assertThat(parse("--public-url", "https://updates.example.com/").publicUrl()).isEqualTo("https://updates.example.com");
  }

  @Test
  void passesStorageFlagsOnToTheControlPlane() {
    DevConfig c = parse("--storage", "s3", "--s3-bucket", "updates", "--s3-endpoint", "http://127.0.0.1:9000", "--s3-path-style");
    assertThat(c.storage())
        .containsEntry("storage", "s3")
        .containsEntry("s3-bucket", "updates")
        .containsEntry("s3-endpoint", "http://127.0.0.1:9000")
        .containsEntry("s3-path-style", "true");
    assertThat(parse().storage()).as("local storage by default").isEmpty();
  }

  @Test
  void passesAzureStorageFlagsAndTheKeyFromTheEnvironmentOnToTheControlPlane() {
    DevConfig c =
        DevConfig.from(
            Settings.parse(
                new String[] {"--storage", "azure", "--azure-account", "myupdates", "--azure-container", "assets", "--azure-sas-ttl", "1d"},
                Map.of("UPDRAFT_AZURE_ACCOUNT_KEY", "a2V5")));
    assertThat(c.storage())
        .containsEntry("storage", "azure")
        .containsEntry("azure-account", "myupdates")
        .containsEntry("azure-container", "assets")
        .containsEntry("azure-sas-ttl", "1d")
        .containsEntry("azure-account-key", "a2V5");
  }

  @Test
  void waitsTenMinutesForAServiceToStartUnlessToldOtherwise() {
    assertThat(parse().startTimeout()).isEqualTo(java.time.Duration.ofMinutes(10));
    assertThat(parse("--start-timeout", "30m").startTimeout()).isEqualTo(java.time.Duration.ofMinutes(30));
    assertThatThrownBy(() -> parse("--start-timeout", "1s")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--start-timeout must be at least 10s");
  }

  @Test
  void passesTheIngestLingerOnToTheIngester() {
    assertThat(parse("--ingest-linger", "1s").ingestLinger()).isEqualTo("1000ms");
    assertThat(parse().ingestLinger()).as("the ingester's default").isNull();
    assertThatThrownBy(() -> parse("--ingest-linger", "soon")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ingest-linger");
  }

  @Test
  void passesTheAssetEncodingOnToTheControlPlane() {
    DevConfig fast = parse("--asset-encoding", "fast");
    assertThat(ControlPlaneConfig.from(Settings.of(DevStack.controlPlaneFlags(fast, "127.0.0.1:9092", PG_URL, TOKEN), Map.of()),
            InsightsExtension.FLAGS).fastEncoding())
        .as("the control plane of `dev --asset-encoding fast`").isTrue();
    assertThat(ControlPlaneConfig.from(Settings.of(DevStack.controlPlaneFlags(parse(), "127.0.0.1:9092", PG_URL, TOKEN), Map.of()),
            InsightsExtension.FLAGS).fastEncoding())
        .as("the control plane's default: the best levels").isFalse();
    assertThatThrownBy(() -> parse("--asset-encoding", "quick")).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--asset-encoding");
  }

  @Test
  void refusesMisspelledFlagsSamePortsAndBadUrls() {
    assertThatThrownBy(() -> parse("--edge-prot", "3001")).isInstanceOf(ConfigException.class).hasMessageContaining("--edge-prot");
    assertThatThrownBy(() -> parse("--control-port", "3000")).hasMessageContaining("must differ");
    assertThatThrownBy(() -> parse("--public-url", "updates.example.com")).hasMessageContaining("http://");
    assertThatThrownBy(() -> parse("--edge-port", "99999")).hasMessageContaining("--edge-port (UPDRAFT_EDGE_PORT)");
  }

  @Test
  void takesAnExternalKafkaWithItsClientPropertiesAndRefusesThePropertiesWithoutIt() throws Exception {
    assertThatThrownBy(() -> parse("--kafka-config", "kafka.properties"))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--kafka-config (UPDRAFT_KAFKA_CONFIG) needs --kafka-bootstrap");
    assertThatThrownBy(() -> DevConfig.from(Settings.parse(new String[0], Map.of("UPDRAFT_KAFKA_CONFIG", "kafka.properties"))))
        .as("from the environment too").hasMessageContaining("needs --kafka-bootstrap");
    assertThatThrownBy(() -> parse("--kafka-bootstrap", "kafka.example.com:9093", "--kafka-port", "9092"))
        .hasMessageContaining("--kafka-port");
    Path file = Files.writeString(tmp.resolve("kafka.properties"), "security.protocol=SSL\n");
    DevConfig external = parse("--data-dir", tmp.toString(), "--kafka-bootstrap", "kafka.example.com:9093", "--kafka-config", file.toString());
    for (Map<String, String> service : java.util.List.of(DevStack.edgeFlags(external, "kafka.example.com:9093"),
        DevStack.ingesterFlags(external, "kafka.example.com:9093", "postgresql://postgres@127.0.0.1:5432/updraft", 0),
        DevStack.controlPlaneFlags(external, "kafka.example.com:9093", "postgresql://postgres@127.0.0.1:5432/updraft", "t"))) {
      assertThat(service).containsEntry("kafka-config", file.toString()).containsEntry("kafka-bootstrap", "kafka.example.com:9093");
    }
    // the embedded broker is plaintext: a file in the services' environment does not reach them
    DevConfig embedded = parse("--data-dir", tmp.toString());
    assertThat(dev.updraft.edge.EdgeConfig.from(Settings.of(DevStack.edgeFlags(embedded, "127.0.0.1:9092"),
        Map.of("UPDRAFT_KAFKA_CONFIG", file.toString()))).kafka().file()).isNull();
  }

  @Test
  void refusesAPortInUseNamingTheFlagBeforeStartingAnything() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int port = taken.getLocalPort();
      DevConfig c = parse("--data-dir", tmp.toString(), "--edge-port", Integer.toString(port), "--control-port", Integer.toString(Ports.freePort()));

      assertThatThrownBy(() -> DevStack.start(c, Map.of()))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--edge-port " + port)
          .hasMessageContaining("already listens");
    }
  }

  @Test
  void refusesADataDirThatCannotBeCreated() throws Exception {
    Path file = Files.createFile(tmp.resolve("a-file"));
    DevConfig c =
        parse("--data-dir", file.resolve("sub").toString(), "--edge-port", Integer.toString(Ports.freePort()), "--control-port", Integer.toString(Ports.freePort()));

    assertThatThrownBy(() -> DevStack.start(c, Map.of())).isInstanceOf(ConfigException.class).hasMessageContaining("--data-dir");
  }

  @Test
  void refusesAShortAdminTokenBeforeStartingKafkaAndPostgres() {
    DevConfig c = parse("--data-dir", tmp.toString(), "--admin-token", "too-short", "--edge-port", Integer.toString(Ports.freePort()),
        "--control-port", Integer.toString(Ports.freePort()));

    assertThatThrownBy(() -> DevStack.start(c, Map.of())).isInstanceOf(ConfigException.class)
        .hasMessageContaining("--admin-token").hasMessageContaining("at least 16 characters");
    // it used to start PostgreSQL and Kafka (their data directories, 5-10 s) before the control plane refused the token
    assertThat(tmp.resolve("postgres")).doesNotExist();
    assertThat(tmp.resolve("kafka")).doesNotExist();
  }

  @Test
  void refusesABadServiceEnvironmentVariableBeforeStartingKafkaAndPostgres() {
    DevConfig c = parse("--data-dir", tmp.toString(), "--edge-port", Integer.toString(Ports.freePort()),
        "--control-port", Integer.toString(Ports.freePort()));

    assertThatThrownBy(() -> DevStack.start(c, Map.of("UPDRAFT_INGEST_BATCH_SIZE", "many"))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("UPDRAFT_INGEST_BATCH_SIZE");
    assertThat(tmp.resolve("postgres")).doesNotExist();
  }

  @Test
  void devTakesTheMetricsTokenAndGivesItToEveryService() {
    String metricsToken = "metrics-token-0123456789abcdef";
    DevConfig c = parse("--metrics-token", metricsToken);
    assertThat(c.metrics()).containsEntry("metrics-token", metricsToken);
    assertThat(DevStack.controlPlaneFlags(c, "127.0.0.1:9092", PG_URL, TOKEN)).containsEntry("metrics-token", metricsToken);
    assertThat(DevStack.ingesterFlags(c, "127.0.0.1:9092", PG_URL, 0)).containsEntry("metrics-token", metricsToken);
    assertThat(DevStack.edgeFlags(c, "127.0.0.1:9092")).containsEntry("metrics-token", metricsToken);
    DevStack.checkConfigs(c, TOKEN, Map.of());
    assertThat(parse().metrics()).isEmpty();
    assertThatThrownBy(() -> DevStack.checkConfigs(parse("--metrics-token", "short"), TOKEN, Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--metrics-token").hasMessageContaining("at least 16 characters");
  }
}
