package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.PemKeys;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.embedded.Ports;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.Topics;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.systemtests.reliability.Api;
import dev.updraft.systemtests.reliability.ChildJvm;
import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.Logs;
import dev.updraft.systemtests.reliability.Metrics;
import dev.updraft.systemtests.reliability.Publishing;
import dev.updraft.systemtests.reliability.Services;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private signing keys go to the key store and nowhere else. The fixture key (registered as PKCS#1 PEM)
 * signs both fixture updates, then the app rotates to a key made by {@code updraft keys generate}; devices
 * check in through a real edge (a child JVM, as production runs it, logging at TRACE) and a real telemetry
 * ingester into PostgreSQL. Then every form of both private keys ({@link KeyMaterial}) and the master key is
 * searched for in: every record (key, value, headers) of every topic of the test's prefix, every row of
 * every table of the PostgreSQL database (as text, bytea in hex), every log line of this JVM at TRACE
 * (control plane, ingester, CLI), the edge's log, configuration, command line and environment, both
 * services' metrics, the API's answers and the devices' answers, and every file of the control plane's
 * data directory. The key store is owner-only ({@code rwx------}/{@code rw-------}) and, with
 * {@code --master-key}, holds no clear key. Positive controls prove each scan reads what it should: both
 * certificates' PEM lines are found in the event log, the devices' client ids in PostgreSQL, the key store
 * opens with the master key, and the scanner finds the key in its own PEM files.
 */
@ExtendWith(RealInfrastructure.class)
class KeyMaterialIT {
  static final String APP = "keyed";

  @Test
  void privateKeysAreOnlyInTheOwnerOnlySealedKeyStore(Infra infra, @TempDir Path dir) throws Exception {
    KeyMaterial fixture = KeyMaterial.ofPem("fixture key", Files.readString(Fixtures.privateKeyPkcs1Pem()));
    // the scanner knows the key in both PEM forms the fixtures hold (so it would see either)
    assertThat(pemDer(Files.readString(Fixtures.privateKeyPkcs1Pem()))).isEqualTo(fixture.pkcs1());
    assertThat(fixture.foundIn(Files.readString(Fixtures.privateKeyPkcs1Pem()))).contains("fixture key PKCS#1 PEM line 1");
    assertThat(fixture.foundIn(Files.readString(Fixtures.privateKeyPkcs8Pem()))).contains("fixture key PKCS#8 PEM line 1");

    byte[] master = new byte[32];
    new SecureRandom().nextBytes(master);
    String masterB64 = Base64.getEncoder().encodeToString(master);
    Path cpDir = dir.resolve("cp");
    String pg = Services.postgresUrl(infra.pgPort(), infra.database(), infra.pgUser());

    // the edge: a child JVM with every logger at TRACE (Kafka's at WARN, as in this JVM)
    Path logback = dir.resolve("logback-trace.xml");
    Files.writeString(logback, "<configuration><appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\"><encoder>"
        + "<pattern>%d %-5level [%thread] %logger - %msg %mdc%n</pattern></encoder></appender>"
        + "<logger name=\"org.apache.kafka\" level=\"WARN\"/><root level=\"TRACE\"><appender-ref ref=\"OUT\"/></root></configuration>");
    int edgePort = Ports.freePort();
    Map<String, String> edgeFlags = new LinkedHashMap<>();
    edgeFlags.put("kafka-bootstrap", infra.kafkaBootstrap());
    edgeFlags.put("topic-prefix", infra.topicPrefix());
    edgeFlags.put("edge-port", Integer.toString(edgePort));
    edgeFlags.put("bind", "127.0.0.1");
    edgeFlags.put("event-loops", "1");
    edgeFlags.put("edge-id", "key-scan-edge");
    List<String> edgeArgs = new ArrayList<>(List.of("edge"));
    edgeFlags.forEach((k, v) -> edgeArgs.addAll(List.of("--" + k, v)));
    Map<String, String> edgeEnv = Map.of("JAVA_TOOL_OPTIONS", "-Dlogback.configurationFile=" + logback);
    String edgeConfig = EdgeConfig.from(Settings.of(edgeFlags, edgeEnv)).toString();

    Map<String, String> sources = new LinkedHashMap<>();
    Set<String> clientIds = new TreeSet<>();
    String k2CertSha;
    Path k2 = dir.resolve("k2");
    int deviceRequests = 0;
    int logLines;
    Vertx vertx = Vertx.vertx();
    try (LogCapture capture = LogCapture.capture()) {
      ControlPlane cp = Services.controlPlaneWithInsights(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), cpDir, pg,
          "master-key", masterB64);
      TelemetryIngester ingester = Services.ingester(vertx, infra.kafkaBootstrap(), infra.topicPrefix(), pg);
      ChildJvm edge = ChildJvm.start(dir.resolve("edge.log"), edgeEnv, edgeArgs.toArray(String[]::new));
      try {
        String base = "http://127.0.0.1:" + cp.port();
        String edgeUrl = "http://127.0.0.1:" + edgePort;
        edge.awaitOk(edgeUrl + "/readyz", Duration.ofSeconds(120));
        List<String> groups = new ArrayList<>();
        JsonNode first = Publishing.appWithUpdate(base, APP, true, "main"); // the fixture key as PKCS#1 PEM
        groups.add(first.path("groupId").asText());
        JsonNode second = Publishing.publish(base, APP, "main", 2);
        groups.add(second.path("groupId").asText());
        String servedId = Publishing.updateIds(second).get(0);

        SignatureVerifier oldCert = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
        Services.until("the edge serves update 2", () -> servedId.equals(ask(edgePort, "main", null).id()), Duration.ofSeconds(60));
        StringBuilder answers = new StringBuilder();
        for (int i = 0; i < 20; i++) {
          String id = UUID.randomUUID().toString();
          clientIds.add(id);
          SignedDevice.Answer a = SignedDevice.ask(edgePort, APP, "main", id, "main", i % 2 == 0 ? null : servedId);
          assertThat(oldCert.verify(a.body(), a.signature())).isTrue();
          answers.append(new String(a.body(), StandardCharsets.UTF_8)).append(a.signatureHeader()).append('\n');
          deviceRequests++;
        }

        // rotate to a key of `updraft keys generate`
        CliRun gen = CliRun.run(base, null, "keys", "generate", "--out", k2.toString());
        assertThat(gen.status()).as(gen.err()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(k2.resolve("private-key.pem"))))
            .as("keys generate writes the private key owner-only").isEqualTo("rw-------");
        CliRun reg = CliRun.run(base, Services.ADMIN, "keys", "register", "--app", APP, "--certificate",
            k2.resolve("certificate.pem").toString(), "--private-key", k2.resolve("private-key.pem").toString(), "--key-id", "k2", "--json");
        assertThat(reg.status()).as(reg.err()).isZero();
        k2CertSha = reg.json().path("certificateSha256").asText();
        sources.put("CLI output", gen.out() + gen.err() + reg.out() + reg.err());
        SignatureVerifier newCert = SignatureVerifier.fromCertificatePem(k2.resolve("certificate.pem"));
        Services.until("the edge signs with k2", () -> "k2".equals(ask(edgePort, "k2", null).signature().keyId()), Duration.ofSeconds(60));
        for (int i = 0; i < 20; i++) {
          String id = UUID.randomUUID().toString().toUpperCase(java.util.Locale.ROOT);
          clientIds.add(id.toLowerCase(java.util.Locale.ROOT));
          SignedDevice.Answer a = SignedDevice.ask(edgePort, APP, "main", id, "k2", i % 2 == 0 ? null : servedId);
          assertThat(newCert.verify(a.body(), a.signature())).isTrue();
          answers.append(new String(a.body(), StandardCharsets.UTF_8)).append(a.signatureHeader()).append('\n');
          deviceRequests++;
        }
        sources.put("device answers", answers.toString());

        // every check-in in PostgreSQL
        String telemetry = Topics.telemetry(infra.topicPrefix());
        Services.until("every check-in ingested", () -> {
          long onTopic = Logs.endOffsets(infra.kafkaBootstrap(), telemetry).values().stream().mapToLong(Long::longValue).sum();
          long[] committed = {-1};
          Logs.query(infra.jdbcUrl(), infra.pgUser(), "SELECT coalesce(sum(next_offset), 0) FROM ingest_offsets WHERE topic = '"
              + telemetry + "'", rs -> committed[0] = rs.getLong(1));
          if (onTopic < 40 || committed[0] != onTopic) {
            return false;
          }
          // and each device's own check-in (the edge may still hold some while the polls' ones are committed)
          Set<String> stored = new HashSet<>();
          Logs.query(infra.jdbcUrl(), infra.pgUser(), "SELECT lower(client_id) FROM devices WHERE app_id = '" + APP + "'",
              rs -> stored.add(rs.getString(1)));
          return stored.containsAll(clientIds);
        }, Duration.ofSeconds(90));

        // what the API shows of the app, and both services' metrics
        StringBuilder api = new StringBuilder();
        for (String path : List.of("/v1/apps", "/v1/apps/" + APP, "/v1/apps/" + APP + "/certificate", "/v1/apps/" + APP + "/updates?limit=200",
            "/v1/apps/" + APP + "/updates/" + groups.get(0), "/v1/apps/" + APP + "/updates/" + groups.get(1), "/v1/apps/" + APP + "/audit?limit=500",
            "/v1/apps/" + APP + "/tokens", "/v1/apps/" + APP + "/branches", "/v1/apps/" + APP + "/insights/updates/" + groups.get(1),
            "/v1/apps/" + APP + "/devices/" + clientIds.iterator().next())) {
          Api.Resp r = Api.get(base + path, Services.ADMIN);
          assertThat(r.status()).as(path + ": " + r).isEqualTo(200);
          api.append(r.text()).append('\n');
        }
        sources.put("API answers", api.toString());
        sources.put("control plane metrics", Metrics.scrape(base + "/metrics"));
        sources.put("edge metrics", Metrics.scrape(edgeUrl + "/metrics"));

        // the edge process as the OS sees it
        sources.put("edge environment", new String(Files.readAllBytes(Path.of("/proc/" + edge.pid() + "/environ")), StandardCharsets.ISO_8859_1));
        sources.put("edge command line", new String(Files.readAllBytes(Path.of("/proc/" + edge.pid() + "/cmdline")), StandardCharsets.ISO_8859_1));
        assertThat(sources.get("edge environment")).as("the environment was read").contains("JAVA_TOOL_OPTIONS=");
        assertThat(sources.get("edge command line")).contains("key-scan-edge");
        sources.put("edge configuration", edgeConfig + "\n" + String.join(" ", edgeArgs) + "\n" + edgeEnv);
      } finally {
        edge.close();
        Services.await(ingester.close());
        Services.await(cp.close());
        Services.await(vertx.close());
      }
      sources.put("edge log (TRACE)", Files.readString(dir.resolve("edge.log")));
      sources.put("this JVM's log (TRACE)", capture.text());
      logLines = capture.lines();
      assertThat(capture.text()).as("the capture saw the services at work").contains(APP);
    }
    String edgeLog = sources.get("edge log (TRACE)");
    assertThat(edgeLog).as("the edge logged (its output is scanned)").isNotBlank();

    // every topic of this test
    StringBuilder kafka = new StringBuilder();
    int[] records = {0};
    List<String> topics = new ArrayList<>();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", infra.kafkaBootstrap()))) {
      for (String t : admin.listTopics().names().get(30, TimeUnit.SECONDS)) {
        if (t.startsWith(infra.topicPrefix())) {
          topics.add(t);
        }
      }
    }
    assertThat(topics).contains(Topics.events(infra.topicPrefix()), Topics.telemetry(infra.topicPrefix()));
    for (String t : topics) {
      Logs.readAll(infra.kafkaBootstrap(), t, r -> {
        records[0]++;
        kafka.append(r.key() == null ? "" : new String(r.key(), StandardCharsets.ISO_8859_1)).append('\n');
        kafka.append(r.value() == null ? "" : new String(r.value(), StandardCharsets.ISO_8859_1)).append('\n');
        for (Header h : r.headers()) {
          kafka.append(h.key()).append('=').append(h.value() == null ? "" : new String(h.value(), StandardCharsets.ISO_8859_1)).append('\n');
        }
      });
    }
    sources.put("Kafka records", kafka.toString());
    // positive control: the certificates, which the events do carry, are found there
    for (Path cert : List.of(Fixtures.certificatePem(), k2.resolve("certificate.pem"))) {
      for (String line : KeyMaterial.pemLines(PemKeys.parseCertificate(Files.readString(cert)))) {
        assertThat(kafka.toString()).as("the event log carries certificate %s", cert).contains(line);
      }
    }
    List<SigningKeyRegistered> registered = new ArrayList<>();
    for (EventEnvelope e : Logs.events(infra.kafkaBootstrap(), infra.topicPrefix(), APP)) {
      if (e.payload() instanceof SigningKeyRegistered) {
        registered.add((SigningKeyRegistered) e.payload());
      }
    }
    assertThat(registered).extracting(SigningKeyRegistered::keyId).containsExactly("main", "k2");

    // every row of every table of the database
    StringBuilder rows = new StringBuilder();
    List<String> tables = new ArrayList<>();
    Logs.query(infra.jdbcUrl(), infra.pgUser(), "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
        + " AND table_schema NOT IN ('pg_catalog', 'information_schema')", rs -> tables.add("\"" + rs.getString(1) + "\".\"" + rs.getString(2) + "\""));
    int[] rowCount = {0};
    for (String t : tables) {
      Logs.query(infra.jdbcUrl(), infra.pgUser(), "SELECT CAST(t AS text) FROM " + t + " AS t", rs -> {
        rowCount[0]++;
        rows.append(rs.getString(1)).append('\n');
      });
    }
    sources.put("PostgreSQL rows", rows.toString());
    assertThat(tables).as("the ingester's tables").anyMatch(t -> t.contains("devices"));
    String rowsLower = rows.toString().toLowerCase(java.util.Locale.ROOT);
    for (String id : clientIds) {
      assertThat(rowsLower).as("device %s in PostgreSQL", id).contains(id);
    }

    // the control plane's files: the key store owner-only and sealed, nothing in clear anywhere under its data directory
    Path keys = cpDir.resolve("keys");
    int keyFiles = 0;
    int dataFiles = 0;
    StringBuilder files = new StringBuilder();
    try (Stream<Path> s = Files.walk(cpDir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String perms = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        if (p.startsWith(keys)) {
          assertThat(perms).as("%s", p).isEqualTo(Files.isDirectory(p) ? "rwx------" : "rw-------");
        }
        if (Files.isRegularFile(p)) {
          dataFiles++;
          String content = new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1);
          files.append(content).append('\n');
          if (p.startsWith(keys)) {
            keyFiles++;
            assertThat(p.getFileName().toString()).endsWith(".key");
            assertThat(content).as("%s is sealed", p).startsWith("updraft-sealed-key-v1\n").doesNotContain("PRIVATE KEY");
          }
        }
      }
    }
    sources.put("control plane data directory", files.toString());
    assertThat(keyFiles).as("one sealed file per registered key").isEqualTo(2);
    KeyStore store = new KeyStore(keys, master);
    PrivateKey fixtureKey = store.load(APP, PemKeys.sha256Hex(PemKeys.parseCertificate(Files.readString(Fixtures.certificatePem()))));
    assertThat(fixtureKey.getEncoded()).as("the master key opens the store").isEqualTo(PemKeys.parsePrivateKey(Files.readString(Fixtures.privateKeyPkcs8Pem())).getEncoded());
    KeyMaterial generated = KeyMaterial.ofPem("generated key", Files.readString(k2.resolve("private-key.pem")));
    assertThat(store.load(APP, k2CertSha).getEncoded()).isEqualTo(PemKeys.parsePrivateKey(Files.readString(k2.resolve("private-key.pem"))).getEncoded());

    // the scan
    Map<String, List<String>> found = new LinkedHashMap<>();
    for (Map.Entry<String, String> src : sources.entrySet()) {
      List<String> hits = new ArrayList<>(fixture.foundIn(src.getValue()));
      hits.addAll(generated.foundIn(src.getValue()));
      for (String secret : List.of(masterB64, HexFormat.of().formatHex(master), new String(master, StandardCharsets.ISO_8859_1))) {
        if (src.getValue().contains(secret)) {
          hits.add("the master key");
        }
      }
      if (!hits.isEmpty()) {
        found.put(src.getKey(), hits);
      }
    }
    assertThat(found).as("key material found").isEmpty();
    System.out.printf("key material: %d forms of 2 private keys and the master key, none in %d records of %d topics, %d rows of %d tables,"
        + " %d log lines of this JVM and %d of the edge (TRACE), the edge's configuration, command line and environment, %d files of the"
        + " control plane's data directory (%d sealed keys, owner-only), the metrics, API and %d device answers; both certificates found"
        + " in the event log%n", fixture.patternCount() + generated.patternCount() + 3, records[0], topics.size(), rowCount[0], tables.size(),
        logLines, edgeLog.split("\n").length, dataFiles, keyFiles, deviceRequests);
  }

  private static SignedDevice.Answer ask(int port, String keyId, String currentId) {
    return SignedDevice.ask(port, APP, "main", UUID.randomUUID().toString(), keyId, currentId);
  }

  private static byte[] pemDer(String pem) {
    return Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
  }
}
