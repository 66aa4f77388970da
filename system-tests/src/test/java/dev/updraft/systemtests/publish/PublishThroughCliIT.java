package dev.updraft.systemtests.publish;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.cli.Cli;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.systemtests.reliability.Services;
import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end through the real CLI: create an app with the fixture code-signing key, publish both
 * fixture exports, and check that the events on Kafka carry manifests and signatures passing the
 * protocol checks and asset URLs serving the hashed bytes; then steer it with the other commands.
 */
@ExtendWith(RealInfrastructure.class)
class PublishThroughCliIT {
  static final String ADMIN = "system-test-admin-token-0123";
  static Vertx vertx;
  static ControlPlane cp;
  /** Projects the event log into PostgreSQL, where the audit (`updraft audit`) is read. */
  static TelemetryIngester ingester;
  static Map<String, String> env;
  static final HttpClient HTTP = HttpClient.newHttpClient();

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", infra.kafkaBootstrap());
    flags.put("topic-prefix", infra.topicPrefix());
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", ADMIN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dir.toString());
    String postgresUrl = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
    flags.put("postgres-url", postgresUrl);
    cp = ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(flags, Map.of())))
        .toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), postgresUrl);
    env = Map.of("UPDRAFT_SERVER", "http://127.0.0.1:" + cp.port(), "UPDRAFT_TOKEN", ADMIN);
  }

  @AfterAll
  static void stop() throws Exception {
    ingester.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    cp.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  record Run(int status, String out, String err) {
    JsonNode json() throws Exception {
      return ProtocolChecks.JSON.readTree(out);
    }
  }

  static Run cli(Map<String, String> environment, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = Cli.run(args, environment, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static List<EventEnvelope> events(Infra infra, String app) {
    String topic = Topics.events(infra.topicPrefix());
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<EventEnvelope> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, Duration.ofSeconds(10))) {
        tps.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("read the event log to its end").isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
          Decoded d = EventCodec.decode(r.value());
          assertThat(d).isInstanceOf(Decoded.Known.class);
          EventEnvelope e = ((Decoded.Known) d).envelope();
          if (e.appId().equals(app)) {
            out.add(e);
          }
        }
      }
    }
    out.sort((a, b) -> Long.compare(a.sequence(), b.sequence()));
    return out;
  }

  static HttpResponse<byte[]> fetch(String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void publishingBothFixtureExportsThroughTheCliYieldsConformingSignedManifests(Infra infra) throws Exception {
    Run created = cli(env, "apps", "create", "cli-demo", "--name", "CLI demo",
        "--certificate", Fixtures.certificatePem().toString(), "--private-key", Fixtures.privateKeyPkcs1Pem().toString());
    assertThat(created.status()).as(created.err()).isZero();
    Run token = cli(env, "tokens", "create", "--app", "cli-demo", "--role", "publish", "--label", "ci", "--json");
    assertThat(token.status()).as(token.err()).isZero();
    Map<String, String> ci = Map.of("UPDRAFT_SERVER", env.get("UPDRAFT_SERVER"), "UPDRAFT_TOKEN", token.json().get("token").asText());

    Run p1 = cli(ci, "publish", "--app", "cli-demo", "--branch", "production", "--runtime-version", "1.0.0",
        "--dist", Fixtures.update1().toString(), "--message", "first", "--git-commit", "1111111", "--json");
    assertThat(p1.status()).as(p1.err()).isZero();
    Run p2 = cli(ci, "publish", "--app", "cli-demo", "--branch", "production", "--runtime-version", "1.0.0",
        "--dist", Fixtures.update2().toString(), "--message", "second");
    assertThat(p2.status()).as(p2.err()).isZero();
    assertThat(p2.out()).startsWith("published group ").contains("ios").contains("android").contains("signed");

    List<EventEnvelope> events = events(infra, "cli-demo");
    assertThat(events).extracting(e -> e.type().wireName())
        .containsExactly("app.created", "signing-key.registered", "token.issued", "update.published", "update.published");
    assertThat(events.get(3).actor()).isEqualTo(token.json().get("tokenId").asText());
    ProtocolChecks checks = new ProtocolChecks(Fixtures.certificatePem());
    SigningKeyRegistered key = (SigningKeyRegistered) events.get(1).payload();
    checks.signature(key.noUpdateDirectiveBody(), key.noUpdateDirectiveSignature());

    UpdateGroup g1 = ((UpdatePublished) events.get(3).payload()).group();
    UpdateGroup g2 = ((UpdatePublished) events.get(4).payload()).group();
    assertThat(g1.groupId()).isEqualTo(p1.json().get("groupId").asText());
    assertThat(g1.message()).isEqualTo("first");
    assertThat(g1.gitCommitHash()).isEqualTo("1111111");
    assertThat(g1.idempotencyKey()).startsWith("cli-");
    assertThat(Instant.parse(g2.platforms().get(0).createdAt())).isAfter(Instant.parse(g1.platforms().get(0).createdAt()));
    for (var pair : List.of(Map.entry(g1, Fixtures.update1()), Map.entry(g2, Fixtures.update2()))) {
      assertThat(pair.getKey().platforms()).extracting(PlatformUpdate::platform).containsExactlyInAnyOrder("ios", "android");
      for (PlatformUpdate u : pair.getKey().platforms()) {
        JsonNode m = checks.manifest(u, pair.getValue(), "1.0.0", "production");
        checks.signature(u.body(), u.signature());
        servesTheHashedBytes(m);
      }
    }
  }

  private static void servesTheHashedBytes(JsonNode m) throws Exception {
    String launch = m.get("launchAsset").get("url").asText();
    HttpResponse<byte[]> plain = fetch(launch);
    assertThat(plain.statusCode()).isEqualTo(200);
    assertThat(ProtocolChecks.b64url(plain.body())).isEqualTo(m.get("launchAsset").get("hash").asText());
    assertThat(plain.headers().firstValue("content-type")).hasValue("application/javascript");
    assertThat(plain.headers().firstValue("cache-control")).hasValue("public, max-age=31536000, immutable");
    HttpResponse<byte[]> gz = fetch(launch, "Accept-Encoding", "gzip");
    assertThat(gz.headers().firstValue("content-encoding")).hasValue("gzip");
    byte[] decoded = new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes();
    assertThat(ProtocolChecks.b64url(decoded)).isEqualTo(m.get("launchAsset").get("hash").asText());
    for (JsonNode a : m.get("assets")) {
      HttpResponse<byte[]> r = fetch(a.get("url").asText(), "Accept", "application/javascript");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).hasValue("image/png");
      assertThat(ProtocolChecks.b64url(r.body())).isEqualTo(a.get("hash").asText());
    }
  }

  @Test
  void steersRolloutsRollbacksAndChannelsAndReportsRefusalsInOneLine(Infra infra) throws Exception {
    assertThat(cli(env, "apps", "create", "cli-steer").status()).isZero();
    Run first = cli(env, "publish", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString(), "--json");
    assertThat(first.status()).as(first.err()).isZero();
    assertThat(first.json().get("platforms").get(0).get("signed").asBoolean()).isFalse();
    Run rollout = cli(env, "publish", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(),
        "--rollout-percentage", "10", "--guard-max-failure-rate", "5", "--guard-min-devices", "50", "--guard-window", "1h", "--json");
    assertThat(rollout.status()).as(rollout.err()).isZero();
    String group = rollout.json().get("groupId").asText();
    assertThat(rollout.json().get("rollout").get("controlGroupId").asText()).isEqualTo(first.json().get("groupId").asText());
    assertThat(rollout.json().get("rollout").get("guard").get("windowSeconds").asLong()).isEqualTo(3600);

    Run blocked = cli(env, "rollback", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--embedded");
    assertThat(blocked.status()).isEqualTo(1);
    assertThat(blocked.err().strip()).startsWith("error: group " + group + " is rolling out").endsWith("[rollout-in-progress]");
    assertThat(blocked.err().strip().lines()).hasSize(1);

    assertThat(cli(env, "rollout", "--app", "cli-steer", "--update", group, "--percentage", "50").out()).contains("now at 50%");
    Run finished = cli(env, "rollout", "--app", "cli-steer", "--update", group, "--finish");
    assertThat(finished.status()).as(finished.err()).isZero();
    Run rb = cli(env, "rollback", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--embedded", "--json");
    assertThat(rb.status()).as(rb.err()).isZero();
    assertThat(rb.json().get("kind").asText()).isEqualTo("rollBackToEmbedded");
    Run republish = cli(env, "rollback", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--to-update", first.json().get("groupId").asText());
    assertThat(republish.status()).as(republish.err()).isZero();
    assertThat(cli(env, "channel", "--app", "cli-steer", "--channel", "production", "--branch", "main", "--rollout-branch", "beta", "--percentage", "20").out())
        .contains("channel production -> branch main, 20% -> branch beta");
    assertThat(cli(env, "channels", "--app", "cli-steer").out()).contains("production -> main (20% -> beta)");
    assertThat(cli(env, "branches", "--app", "cli-steer").out()).contains("main").contains("runtime 1.0.0: 4 groups");
    assertThat(cli(env, "updates", "--app", "cli-steer", "--limit", "2").out().lines()).hasSize(3).last().asString().startsWith("more: --cursor");
    Run audit = cli(env, "audit", "--app", "cli-steer", "--json");
    assertThat(audit.json().get("items").get(0).get("type").asText()).isEqualTo("channel.mapped");

    List<EventEnvelope> events = events(infra, "cli-steer");
    assertThat(events).extracting(e -> e.type().wireName()).containsExactly(
        "app.created", "update.published", "update.published", "rollout.changed", "rollout.finished",
        "update.rolled-back-to-embedded", "update.published", "channel.mapped");
    RolledBackToEmbedded r = (RolledBackToEmbedded) events.get(5).payload();
    JsonNode directive = ProtocolChecks.JSON.readTree(r.group().platforms().get(0).body());
    assertThat(directive.get("parameters").get("commitTime").asText()).matches(ProtocolChecks.CREATED_AT);
    // 33: the republish has new ids and a createdAt after everything before it
    UpdateGroup again = ((UpdatePublished) events.get(6).payload()).group();
    assertThat(Instant.parse(again.platforms().get(0).createdAt())).isAfter(Instant.parse(r.group().platforms().get(0).createdAt()));
    assertThat(again.platforms().get(0).updateId()).isNotIn(first.json().get("platforms").findValuesAsText("updateId"));

    Run readOnly = cli(Map.of("UPDRAFT_SERVER", env.get("UPDRAFT_SERVER"), "UPDRAFT_TOKEN",
        cli(env, "tokens", "create", "--app", "cli-steer", "--role", "read", "--json").json().get("token").asText()),
        "publish", "--app", "cli-steer", "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
    assertThat(readOnly.status()).isEqualTo(1);
    assertThat(readOnly.err().strip()).isEqualTo("error: this token has role read; this needs role publish or admin [forbidden]");
  }

  @Test
  void generatedKeysAreAcceptedByTheServer(@TempDir Path dir) throws Exception {
    assertThat(cli(Map.of(), "keys", "generate", "--out", dir.toString()).status()).isZero();
    assertThat(cli(env, "apps", "create", "cli-keys").status()).isZero();
    Run reg = cli(env, "keys", "register", "--app", "cli-keys", "--certificate", dir.resolve("certificate.pem").toString(),
        "--private-key", dir.resolve("private-key.pem").toString());
    assertThat(reg.status()).as(reg.err()).isZero();
    Run cert = cli(env, "keys", "certificate", "--app", "cli-keys");
    assertThat(cert.out().replace("\r", "")).isEqualTo(Files.readString(dir.resolve("certificate.pem")).replace("\r", ""));
  }
}
