package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.controlplane.ControlPlane;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.RawHttp;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.SecuredKafka;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path on a broker whose only client listeners are secured ({@link SecuredKafka}: SASL_SSL with
 * SCRAM-SHA-512 under a CA the test made, ACLs only, {@code allow.everyone.if.no.acl.found=false}), each
 * service with its own principal and the least privilege docs/operations.md lists, its password kept out of
 * its {@code --kafka-config} file by Kafka's file config provider: a publish, an edge serving it signed, its
 * check-in in PostgreSQL read back through the insights. The edge's credentials cannot append an event. A
 * wrong password and a missing ACL are reasons on {@code /readyz}, and the edge recovers once the cause goes.
 */
@ExtendWith(RealInfrastructure.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the first test's control plane creates the topics
class SecuredKafkaIT {
  static final String PREFIX = "sec.";
  static final String EVENTS = Topics.events(PREFIX);
  static final String TELEMETRY = Topics.telemetry(PREFIX);
  static final String SNAPSHOTS = Topics.snapshots(PREFIX);
  static SecuredKafka kafka;
  static Path dir;

  @BeforeAll
  static void start(@TempDir Path d) {
    dir = d;
    Map<String, String> users = new HashMap<>();
    for (String u : List.of("control", "edge", "ingester", "no-acl")) {
      users.put(u, u + "-" + UUID.randomUUID());
    }
    kafka = SecuredKafka.start(d.resolve("kafka"), users);
    // the control plane: creates and writes its topics, transactionally, and reads them back
    kafka.allow("control", ResourceType.TOPIC, PREFIX + "updraft.", PatternType.PREFIXED, AclOperation.CREATE, AclOperation.DESCRIBE,
        AclOperation.DESCRIBE_CONFIGS, AclOperation.READ, AclOperation.WRITE);
    kafka.allow("control", ResourceType.TRANSACTIONAL_ID, PREFIX + "updraft-control-plane", PatternType.LITERAL, AclOperation.WRITE,
        AclOperation.DESCRIBE);
    edgeAcls("edge");
    // the ingester: reads telemetry and events, in its two consumer groups
    for (String t : List.of(TELEMETRY, EVENTS)) {
      kafka.allow("ingester", ResourceType.TOPIC, t, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
    }
    for (String g : List.of(PREFIX + "ingester", PREFIX + "updraft-history")) {
      kafka.allow("ingester", ResourceType.GROUP, g, PatternType.LITERAL, AclOperation.READ);
    }
  }

  /** An edge reads the events and snapshots and writes check-ins: nothing else. */
  static void edgeAcls(String principal) {
    for (String t : List.of(EVENTS, SNAPSHOTS)) {
      kafka.allow(principal, ResourceType.TOPIC, t, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
    }
    kafka.allow(principal, ResourceType.TOPIC, TELEMETRY, PatternType.LITERAL, AclOperation.WRITE, AclOperation.DESCRIBE);
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  /** A {@code --kafka-config} file for {@code user} whose password is read from a file of its own by Kafka's FileConfigProvider. */
  static Path configFile(String user, String password) throws IOException {
    Path secret = dir.resolve(user + "-" + UUID.randomUUID() + ".secret");
    Files.writeString(secret, "password=" + password + "\n");
    Map<String, String> c = kafka.scramClient(user, "${file:" + secret + ":password}");
    Properties p = new Properties();
    p.putAll(c);
    p.put("config.providers", "file");
    p.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
    Path f = dir.resolve(user + "-" + UUID.randomUUID() + ".properties");
    try (var w = Files.newBufferedWriter(f)) {
      p.store(w, "kafka client settings of " + user);
    }
    assertThat(Files.readString(f)).as("no password in the file itself").doesNotContain(password);
    return f;
  }

  @Test
  @Order(1)
  void publishServeAndCheckInRunOnSaslSslWithLeastPrivilegeAndAnEdgeCannotAppendAnEvent(Infra infra, @TempDir Path tmp) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = null;
    TelemetryIngester ingester = null;
    EdgeNode edge = null;
    try {
      String pg = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());
      cp = Services.controlPlaneWithInsights(vertx, kafka.saslBootstrap(), PREFIX, tmp.resolve("cp"), pg,
          "kafka-config", configFile("control", kafka.password("control")).toString());
      ingester = Services.ingester(vertx, kafka.saslBootstrap(), PREFIX, pg, "kafka-config",
          configFile("ingester", kafka.password("ingester")).toString());
      edge = Services.readyEdge(vertx, kafka.saslBootstrap(), PREFIX, "secured-edge", "kafka-config",
          configFile("edge", kafka.password("edge")).toString());
      String server = "http://127.0.0.1:" + cp.port();
      String updateId = Publishing.updateIds(Publishing.appWithUpdate(server, "secured", true, "main")).get(0);

      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      String device = "5ec0e000-0000-4000-8000-" + String.format("%012d", 1);
      int port = edge.port();
      Services.until("the edge serves the publish signed", () -> {
        try (RawHttp c = new RawHttp(port, 10_000)) {
          return Publishing.servedId(c.exchange(Publishing.deviceRequest("secured", "main", device)), verifier).equals(updateId);
        } catch (IOException e) {
          throw new AssertionError(e);
        }
      }, Duration.ofSeconds(60));
      Services.until("the device's check-in in PostgreSQL, read by the insights", () -> {
        Api.Resp r = Api.get(server + "/v1/apps/secured/devices/" + device, Services.ADMIN);
        return r.status() == 200 && r.json().path("checkIns").asLong() >= 1;
      }, Duration.ofSeconds(60));

      // the edge's own credentials cannot append an event (a forged token.issued would make its sender an admin)
      Map<TopicPartition, Long> before = endOffsets(EVENTS);
      Map<String, Object> p = new HashMap<>(kafka.scramClient("edge"));
      p.put("bootstrap.servers", kafka.saslBootstrap());
      p.put("max.block.ms", 10_000);
      p.put("delivery.timeout.ms", 10_000);
      p.put("request.timeout.ms", 5_000);
      String forged = "{\"eventId\":\"" + UUID.randomUUID() + "\",\"type\":\"token.issued\",\"schemaVersion\":1,\"appId\":\"secured\"}";
      try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>(EVENTS, "secured", forged.getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
      assertThat(endOffsets(EVENTS)).as("the event log did not grow").isEqualTo(before);
    } finally {
      for (var closing : new io.vertx.core.Future<?>[] {edge == null ? null : edge.close(), ingester == null ? null : ingester.close(),
          cp == null ? null : cp.close()}) {
        if (closing != null) {
          Services.await(closing);
        }
      }
      Services.await(vertx.close());
    }
  }

  @Test
  @Order(2)
  void aWrongPasswordAndAMissingAclAreReadyzReasonsAndTheEdgeRecoversWhenTheCauseGoes(Infra infra) throws Exception {
    Vertx vertx = Vertx.vertx();
    EdgeNode unknown = null;
    EdgeNode noAcl = null;
    try {
      // a principal the broker does not know yet: refused credentials
      String late = "late-edge";
      String latePassword = "late-" + UUID.randomUUID();
      unknown = Services.edge(vertx, kafka.saslBootstrap(), PREFIX, "late-edge", "kafka-config", configFile(late, latePassword).toString());
      assertReason(unknown, "kafka-refused", "Kafka refused the credentials", "sasl.jaas.config");
      // a principal with the right password and no ACL: the topic is denied, by name
      noAcl = Services.edge(vertx, kafka.saslBootstrap(), PREFIX, "no-acl-edge", "kafka-config",
          configFile("no-acl", kafka.password("no-acl")).toString());
      assertReason(noAcl, "kafka-refused", "denied this principal topics [" + EVENTS + "]", "ACL");

      // the cause goes: the user is created with that password and an edge's ACLs; the same edge becomes ready
      kafka.admin().alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(late,
          new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), latePassword))).all().get(30, TimeUnit.SECONDS);
      edgeAcls(late);
      EdgeNode e = unknown;
      Services.until("the late edge ready once its user and ACLs exist", e::ready, Duration.ofSeconds(60));

      // the control plane with a wrong password does not start, and says why
      Path wrong = configFile("control", "not-" + kafka.password("control"));
      assertThatThrownBy(() -> Services.controlPlane(vertx, kafka.saslBootstrap(), PREFIX, dir.resolve("cp-wrong"), "kafka-config",
          wrong.toString())).hasMessageContaining("Kafka refused the credentials").hasMessageContaining("sasl.jaas.config");
    } finally {
      for (EdgeNode e : new EdgeNode[] {unknown, noAcl}) {
        if (e != null) {
          Services.await(e.close());
        }
      }
      Services.await(vertx.close());
    }
  }

  @Test
  @Order(3)
  void anEdgeOnTheMutualTlsListenerIsAuthenticatedByItsCertificate() throws Exception {
    edgeAcls("mtls-edge");
    Properties p = new Properties();
    p.putAll(kafka.mtlsClient("mtls-edge"));
    Path f = dir.resolve("mtls-edge.properties");
    try (var w = Files.newBufferedWriter(f)) {
      p.store(w, null);
    }
    Vertx vertx = Vertx.vertx();
    try {
      EdgeNode edge = Services.readyEdge(vertx, kafka.mtlsBootstrap(), PREFIX, "mtls-edge", "kafka-config", f.toString());
      assertThat(Api.get("http://127.0.0.1:" + edge.port() + "/readyz", null).json().path("apps").asInt())
          .as("the app the first test published").isEqualTo(1);
      Services.await(edge.close());
    } finally {
      Services.await(vertx.close());
    }
  }

  @Test
  @Order(4)
  void anIngesterDeniedItsConsumerGroupSaysSoInOneLineWithoutAStackTrace(Infra infra) throws Exception {
    for (String t : List.of(TELEMETRY, EVENTS)) {
      kafka.allow("no-acl", ResourceType.TOPIC, t, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE);
    }
    String group = PREFIX + "groupless-ingester";
    Vertx vertx = Vertx.vertx();
    try (LogCapture logs = LogCapture.capture()) {
      TelemetryIngester ingester = Services.ingester(vertx, kafka.saslBootstrap(), PREFIX,
          Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser()), "kafka-config",
          configFile("no-acl", kafka.password("no-acl")).toString(), "consumer-group", group, "ingest-consumers", "1",
          "history-consumer-group", PREFIX + "groupless-history");
      Services.until("the ingester names the group it is denied", () -> logs.text().contains(
          "Kafka denied this principal the consumer group " + group), Duration.ofSeconds(60));
      Services.await(ingester.close());
      assertThat(logs.text()).as("no stack trace of the loops' retries").doesNotContain("IngestLoop.step(").doesNotContain("HistoryLoop.step(");
    } finally {
      Services.await(vertx.close());
    }
  }

  static void assertReason(EdgeNode edge, String code, String... parts) {
    String url = "http://127.0.0.1:" + edge.port() + "/readyz";
    Services.until(() -> "readyz of edge " + edge.port() + " says " + code + ": " + Api.get(url, null).text(), () -> {
      Api.Resp r = Api.get(url, null);
      if (r.status() != 503 || !code.equals(r.errorCode())) {
        return false;
      }
      for (String p : parts) {
        assertThat(r.text()).contains(p);
      }
      return true;
    }, Duration.ofSeconds(60));
    assertThat(edge.ready()).isFalse();
  }

  static Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
    var admin = kafka.admin();
    int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions().size();
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    for (int i = 0; i < partitions; i++) {
      ask.put(new TopicPartition(topic, i), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e : admin.listOffsets(ask).all().get(30, TimeUnit.SECONDS)
        .entrySet()) {
      out.put(e.getKey(), e.getValue().offset());
    }
    return out;
  }
}
