package dev.updraft.systemtests.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.Topics;
import dev.updraft.launcher.backup.BackupCommands;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.KafkaCluster;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updraft backup} of a live stack (two apps with keys rotated, one retired, a deleted group, a retention
 * policy applied, a rollback, a deleted third app, snapshots written and events after them, an aborted
 * transaction in the log), restored with {@code updraft restore} into a second Kafka cluster and a new database,
 * served by a new control plane, ingester and edge: every device answer (app, channel, platform, runtime
 * version, key id asked, current update) is the same, byte for byte, and its signature verifies with the
 * certificate of the key asked; the publisher API reads and the audit (rebuilt by the ingester from the
 * restored log) are the same. The restored services start from the restored snapshots. Restore refuses
 * topics that hold records and a backup whose files differ from its manifest; the backup holds no record of
 * the aborted transaction.
 */
@ExtendWith(RealInfrastructure.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BackupRestoreIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String ABORTED = "aborted-channel-5f1c";

  @TempDir static Path work;
  Infra infra;
  String masterKey;
  Path backup;
  Path k2;
  final List<String> currentIds = new ArrayList<>();
  Map<DeviceGrid.Ask, DeviceGrid.Answer> sourceAnswers;
  Map<String, String> sourceReads;
  KafkaCluster second;

  @BeforeAll
  void backUpALiveStack(Infra infra) throws Exception {
    this.infra = infra;
    byte[] mk = new byte[32];
    new SecureRandom().nextBytes(mk);
    masterKey = Base64.getEncoder().encodeToString(mk);
    Path data = work.resolve("source");
    try (Stack stack = Stack.start(infra, data, Map.of("master-key", masterKey, "snapshot-interval-events", "4"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      populate(stack, cli);
      KafkaLook.await(infra.kafkaBootstrap(), List.of(Topics.events(infra.topicPrefix()), Topics.snapshots(infra.topicPrefix())));
      backup = work.resolve("backup");
      Run b = run("backup", "--out", backup.toString(), "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", infra.topicPrefix(),
          "--key-store-dir", data.resolve("keys").toString());
      assertThat(b.status()).as(b.err()).isZero();
      assertThat(b.out()).contains("backup written to " + backup);
      JsonNode manifest = JSON.readTree(backup.resolve("manifest.json").toFile());
      assertThat(KafkaLook.ends(infra.kafkaBootstrap(), Topics.events(infra.topicPrefix())))
          .as("nothing appended since the backup began: the answers below are those of the backed-up log")
          .isEqualTo(endsOf(manifest.path("events")));
      sourceAnswers = DeviceGrid.ask(stack.edgeUrl(), asks());
      sourceReads = Reads.all(stack.controlUrl());
    }
  }

  @AfterAll
  void stopSecondCluster() {
    if (second != null) {
      second.close();
    }
  }

  /**
   * Two apps lived through every kind of change; a third was deleted; snapshots were written, then a control
   * plane that writes none made the changes after them.
   */
  private void populate(Stack stack, CliRunner cli) throws Exception {
    for (String app : List.of("alpha", "beta", "gamma")) {
      cli.json("apps", "create", app, "--certificate", Fixtures.certificatePem().toString(), "--private-key",
          Fixtures.privateKeyPkcs8Pem().toString());
    }
    publish(cli, "alpha", "main", "1.0.0", Fixtures.update1());
    String oldAlpha = publish(cli, "alpha", "main", "1.0.0", Fixtures.update2());
    publish(cli, "alpha", "main", "1.0.0", Fixtures.update1());
    String staging = publish(cli, "alpha", "staging", "1.0.0", Fixtures.update2(), "--rollout-percentage", "40");
    cli.json("channel", "--app", "alpha", "--channel", "production", "--branch", "main", "--rollout-branch", "staging", "--percentage", "25");
    publish(cli, "alpha", "main", "2.0.0", Fixtures.update2());
    for (int i = 0; i < 3; i++) {
      publish(cli, "beta", "main", "1.0.0", i % 2 == 0 ? Fixtures.update1() : Fixtures.update2());
    }
    publish(cli, "gamma", "main", "1.0.0", Fixtures.update1());
    abortOneEvent(cli);
    KafkaLook.awaitWritten(stack.controlUrl());
    KafkaLook.await(infra.kafkaBootstrap(), List.of(Topics.events(infra.topicPrefix()), Topics.snapshots(infra.topicPrefix())));
    // from here on no snapshot is written: what follows is the log's tail, which restored services must fold
    // from the events at the offsets the restored markers name
    stack.restartControlPlane(work.resolve("source"), Map.of("master-key", masterKey, "snapshot-interval-events", "0"));
    cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);

    // key rotation: a second key on both apps; alpha then retires its first
    k2 = work.resolve("k2");
    CliRunner.Result gen = cli.run("keys", "generate", "--out", k2.toString(), "--common-name", "Backup test k2");
    assertThat(gen.status()).as(gen.err()).isZero();
    for (String app : List.of("alpha", "beta")) {
      cli.json("keys", "register", "--app", app, "--certificate", k2.resolve("certificate.pem").toString(), "--private-key",
          k2.resolve("private-key.pem").toString(), "--key-id", "k2");
    }
    cli.json("keys", "retire", "--app", "alpha", "--key-id", "main");
    // deletions and retention
    cli.json("updates", "delete", "--app", "alpha", "--update", oldAlpha);
    cli.json("retention", "set", "--app", "beta", "--branch", "main", "--keep", "1");
    cli.json("retention", "apply", "--app", "beta");
    CliRunner.Result deleted = cli.run("apps", "delete", "gamma", "--confirm", "gamma");
    assertThat(deleted.status()).as(deleted.err()).isZero();
    // events after the snapshots: the restored services fold these from the log
    cli.json("rollback", "--app", "beta", "--branch", "main", "--runtime-version", "2.0.0", "--embedded");
    cli.json("rollout", "--app", "alpha", "--update", staging, "--percentage", "60");
    publish(cli, "beta", "main", "1.0.0", Fixtures.update2());
  }

  private String publish(CliRunner cli, String app, String branch, String runtime, Path dist, String... more) {
    List<String> args = new ArrayList<>(List.of("publish", "--app", app, "--branch", branch, "--runtime-version", runtime, "--dist",
        dist.toString()));
    args.addAll(List.of(more));
    JsonNode g = cli.json(args.toArray(new String[0]));
    for (JsonNode p : g.path("platforms")) {
      currentIds.add(p.path("updateId").asText());
    }
    return g.path("groupId").asText();
  }

  /**
   * A transaction of one well-formed event of alpha (mapping a channel) that is aborted: a reader at
   * read_uncommitted, or a backup that used one, would see a channel the control plane never committed.
   */
  private void abortOneEvent(CliRunner cli) throws Exception {
    long next = cli.json("apps", "show", "alpha").path("lastSequence").asLong() + 1;
    EventEnvelope e = EventEnvelope.of("alpha", next, Instant.now(), "intruder", new EventPayload.ChannelMapped(ABORTED, "main", null));
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "backup-it-aborted-" + UUID.randomUUID());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(Topics.events(infra.topicPrefix()), "alpha".getBytes(StandardCharsets.UTF_8), EventCodec.encode(e)))
          .get();
      producer.abortTransaction();
    }
    assertThat(KafkaLook.uncommittedValues(infra.kafkaBootstrap(), Topics.events(infra.topicPrefix())))
        .as("the aborted record is in the log").anySatisfy(v -> assertThat(v).contains(ABORTED));
  }

  List<DeviceGrid.Ask> asks() {
    int n = currentIds.size();
    List<String> current = new ArrayList<>();
    current.add(null);
    current.add(currentIds.get(n - 1));
    current.add(currentIds.get(n / 2));
    return DeviceGrid.asks(List.of("alpha", "beta", "gamma"), List.of("production", "main", "staging", "qa"), List.of("main", "k2"), current);
  }

  @Test
  void aRestoredStackAnswersEveryDeviceAndReadLikeTheSource() throws Exception {
    second = KafkaCluster.start(1);
    String db = "restored_" + UUID.randomUUID().toString().substring(0, 8);
    try (Connection c = DriverManager.getConnection(infra.jdbcUrl(), infra.pgUser(), infra.pgPassword()); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + db);
    }
    Infra restored = new Infra(second.bootstrapServers(), "restored.", infra.pgHost(), infra.pgPort(), db, infra.pgUser(), infra.pgPassword());
    Path data = work.resolve("restored");
    Run r = run("restore", "--from", backup.toString(), "--kafka-bootstrap", restored.kafkaBootstrap(), "--topic-prefix", "restored.",
        "--key-store-dir", data.resolve("keys").toString());
    assertThat(r.status()).as(r.err()).isZero();
    assertThat(r.out()).contains("restored into " + restored.kafkaBootstrap());
    try (Stack stack = Stack.start(restored, data, Map.of("master-key", masterKey, "snapshot-interval-events", "4"))) {
      Map<DeviceGrid.Ask, DeviceGrid.Answer> answers = DeviceGrid.ask(stack.edgeUrl(), asks());
      int manifests = 0;
      for (Map.Entry<DeviceGrid.Ask, DeviceGrid.Answer> e : sourceAnswers.entrySet()) {
        assertThat(answers.get(e.getKey())).as(e.getKey().name()).isEqualTo(e.getValue());
        manifests += e.getValue().status() == 200 && new String(e.getValue().body(), StandardCharsets.UTF_8).contains("launchAsset") ? 1 : 0;
      }
      assertThat(manifests).as("the grid holds served manifests").isGreaterThan(50);
      int verified = DeviceGrid.verifySignatures(answers, Map.of("main", SignatureVerifier.fromCertificatePem(Fixtures.certificatePem()),
          "k2", SignatureVerifier.fromCertificatePem(k2.resolve("certificate.pem"))));
      assertThat(verified).as("signatures checked").isGreaterThan(50);

      Map<String, String> reads = Reads.awaitEqual(stack.controlUrl(), sourceReads, Duration.ofSeconds(60));
      for (Map.Entry<String, String> e : sourceReads.entrySet()) {
        assertThat(reads.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
      JsonNode ready = JSON.readTree(Http.get(stack.edgeUrl() + "/readyz").body());
      assertThat(ready.path("snapshotApps").asInt()).as("the edge started from the restored snapshots: %s", ready).isGreaterThanOrEqualTo(2);
      assertThat(ready.path("eventsReplayed").asLong()).as("and folded the events after them: %s", ready).isGreaterThan(10);
      assertThat(KafkaLook.gauge(stack.controlUrl(), "updraft_control_snapshot_apps")).as("so did the control plane").isGreaterThanOrEqualTo(2.0);
      assertThat(sourceReads.get("/v1/apps/alpha/audit?limit=500")).contains("signing-key.registered", "updates.deleted");
    }
  }

  @Test
  void restoreRefusesTopicsThatHoldRecordsAndWritesNothing() throws Exception {
    Path keys = work.resolve("refused-keys");
    Map<Integer, Long> ends = KafkaLook.ends(infra.kafkaBootstrap(), Topics.events(infra.topicPrefix()));
    Run r = run("restore", "--from", backup.toString(), "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", infra.topicPrefix(),
        "--key-store-dir", keys.toString());
    assertThat(r.status()).isEqualTo(1);
    int first = ends.entrySet().stream().filter(e -> e.getValue() > 0).findFirst().orElseThrow().getKey();
    assertThat(r.lastLine()).isEqualTo("updraft restore: topic " + Topics.events(infra.topicPrefix()) + " is not empty: partition " + first
        + " has end offset " + ends.get(first) + "; restore writes only into empty or absent topics: use a new cluster or --topic-prefix, or delete the topics first");
    assertThat(KafkaLook.ends(infra.kafkaBootstrap(), Topics.events(infra.topicPrefix()))).as("nothing written").isEqualTo(ends);
    assertThat(keys).doesNotExist();
  }

  @Test
  void restoreRefusesABackupWhoseFilesDifferFromItsManifest() throws Exception {
    Path copy = work.resolve("tampered");
    try (Stream<Path> files = Files.walk(backup)) {
      for (Path f : files.toList()) {
        Path to = copy.resolve(backup.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(to);
        } else {
          Files.copy(f, to);
        }
      }
    }
    // one event's bytes changed, the file still a valid gzip stream of records: only the hash tells
    String file = null;
    for (JsonNode p : JSON.readTree(backup.resolve("manifest.json").toFile()).path("events").path("partitions")) {
      file = file == null && p.path("records").asLong() > 0 ? p.path("file").asText() : file;
    }
    Path events = copy.resolve(file);
    byte[] raw = Gzip.gunzip(Files.readAllBytes(events));
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    int at = text.indexOf("\"branch\":\"main\"");
    assertThat(at).as("an event naming branch main in " + file).isPositive();
    Files.write(events, Gzip.gzip(text.replaceFirst("\"branch\":\"main\"", "\"branch\":\"mein\"").getBytes(StandardCharsets.ISO_8859_1)));

    Run r = run("restore", "--from", copy.toString(), "--kafka-bootstrap", infra.kafkaBootstrap(), "--topic-prefix", "tampered.",
        "--key-store-dir", work.resolve("tampered-keys").toString());
    assertThat(r.status()).isEqualTo(1);
    assertThat(r.lastLine()).startsWith("updraft restore: the backup in " + copy + " does not match its manifest (altered or damaged), nothing was"
        + " written: " + file + " has ").contains("the manifest says");
    assertThat(KafkaLook.topics(infra.kafkaBootstrap())).noneMatch(t -> t.startsWith("tampered."));
  }

  @Test
  void theBackupHoldsNoRecordOfTheAbortedTransactionAndItsKeysSealed() throws Exception {
    JsonNode manifest = JSON.readTree(backup.resolve("manifest.json").toFile());
    long skipped = 0;
    for (JsonNode p : manifest.path("events").path("partitions")) {
      String records = new String(Gzip.gunzip(Files.readAllBytes(backup.resolve(p.path("file").asText()))), StandardCharsets.ISO_8859_1);
      assertThat(records.contains(ABORTED)).as("%s holds the aborted event", p.path("file").asText()).isFalse();
      skipped += p.path("skippedOffsets").asLong();
    }
    assertThat(skipped).as("offsets of transaction markers and the aborted record, left out").isGreaterThan(20);
    List<Path> keys;
    try (Stream<Path> s = Files.walk(backup.resolve("keys"))) {
      keys = s.filter(Files::isRegularFile).toList();
    }
    assertThat(keys).as("alpha's and beta's keys (gamma's were destroyed with it)").hasSize(4);
    for (Path k : keys) {
      String content = Files.readString(k, StandardCharsets.US_ASCII);
      assertThat(content).as(k.toString()).startsWith("updraft-sealed-key-v1").doesNotContain("PRIVATE KEY");
    }
  }

  static Map<Integer, Long> endsOf(JsonNode topic) {
    Map<Integer, Long> out = new LinkedHashMap<>();
    for (JsonNode p : topic.path("partitions")) {
      out.put(p.path("partition").asInt(), p.path("endOffset").asLong());
    }
    return out;
  }

  /** What a backup or restore run printed; {@code err} holds its progress lines, then its refusal if any. */
  record Run(int status, String out, String err) {
    String lastLine() {
      List<String> lines = err.lines().toList();
      return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
  }

  static Run run(String command, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = BackupCommands.run(command, args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    System.out.print(e); // the progress lines, in the test's output
    return new Run(status, out.toString(StandardCharsets.UTF_8), e);
  }

  /** The publisher API reads a backup must preserve. */
  static final class Reads {
    private Reads() {}

    static List<String> paths() {
      List<String> out = new ArrayList<>(List.of("/v1/apps", "/v1/apps/gamma"));
      for (String app : List.of("alpha", "beta")) {
        for (String p : List.of("", "/updates?limit=200", "/updates?branch=main&runtimeVersion=1.0.0", "/channels", "/branches", "/keys",
            "/retention", "/tokens", "/audit?limit=500")) {
          out.add("/v1/apps/" + app + p);
        }
      }
      return out;
    }

    static Map<String, String> all(String base) throws Exception {
      Map<String, String> out = new LinkedHashMap<>();
      for (String p : paths()) {
        HttpResponse<String> r = Http.get(base + p, "authorization", "Bearer " + Stack.ADMIN_TOKEN);
        out.put(p, r.statusCode() + " " + r.body());
      }
      return out;
    }

    /** The reads of {@code base} once they equal {@code expected} (the audit is rebuilt meanwhile), or at the deadline. */
    static Map<String, String> awaitEqual(String base, Map<String, String> expected, Duration within) throws Exception {
      long deadline = System.nanoTime() + within.toNanos();
      Map<String, String> now = all(base);
      while (!now.equals(expected) && System.nanoTime() < deadline) {
        Thread.sleep(250);
        now = all(base);
      }
      return now;
    }
  }
}
