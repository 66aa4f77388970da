package dev.updraft.testing;

import dev.updraft.embedded.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A Kafka broker (KRaft, one combined broker and controller) in a process of its own, secured as managed
 * clusters are: its only client listeners are {@code SASL_SSL} (SCRAM-SHA-512, users created at format time)
 * and {@code SSL} with client certificates required (mTLS, the certificate's common name as the principal),
 * both under a {@link TestCa} the test made; the controller listener takes only the broker's own certificate.
 * Authorization is {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}: a principal
 * may do what an ACL ({@link #allow}) lets it, nothing else. {@code admin} and the broker are super users.
 *
 * <p>Run as {@code java -cp <this JVM's class path> kafka.Kafka server.properties} (through {@link KafkaChild}, which
 * ends it when this JVM ends), logging at WARN to {@code broker.log} in its directory. Not thread-safe: start and close from the test's thread.
 */
public final class SecuredKafka implements AutoCloseable {
  /** The super user's name (SCRAM). */
  public static final String ADMIN = "admin";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  private final Path dir;
  private final TestCa ca;
  private final Path caFile;
  private final int saslPort;
  private final int mtlsPort;
  private final Map<String, String> passwords;
  private Process process;
  private Admin admin;

  private SecuredKafka(Path dir, TestCa ca, Path caFile, int saslPort, int mtlsPort, Map<String, String> passwords) {
    this.dir = dir;
    this.ca = ca;
    this.caFile = caFile;
    this.saslPort = saslPort;
    this.mtlsPort = mtlsPort;
    this.passwords = passwords;
  }

  /**
   * Formats a broker under {@code dir} with SCRAM-SHA-512 users {@code passwords} (name to password, {@code admin}
   * added), starts it and waits until {@code admin} can describe the cluster.
   */
  public static SecuredKafka start(Path dir, Map<String, String> passwords) {
    Map<String, String> users = new LinkedHashMap<>(passwords);
    users.put(ADMIN, "admin-" + Uuid.randomUuid());
    TestCa ca = TestCa.create("updraft-kafka-test");
    Path certs = dir.resolve("certs");
    SecuredKafka k = new SecuredKafka(dir, ca, ca.writeRoot(certs.resolve("ca.crt")), Ports.freePort(), Ports.freePort(), users);
    k.launch(certs, Ports.freePort());
    return k;
  }

  private void launch(Path certs, int controllerPort) {
    TestCa.PemFiles broker = ca.server(certs, "broker", List.of("localhost"), List.of("127.0.0.1"));
    Path logDir = dir.resolve("data");
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    p.put("listeners", "SASL_SSL://127.0.0.1:" + saslPort + ",MTLS://127.0.0.1:" + mtlsPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    p.put("advertised.listeners", "SASL_SSL://127.0.0.1:" + saslPort + ",MTLS://127.0.0.1:" + mtlsPort);
    p.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,MTLS:SSL,CONTROLLER:SSL");
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "MTLS");
    p.put("ssl.keystore.type", "PEM");
    p.put("ssl.keystore.location", broker.keystore().toString());
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", caFile.toString());
    p.put("listener.name.mtls.ssl.client.auth", "required");
    p.put("listener.name.controller.ssl.client.auth", "required");
    p.put("ssl.principal.mapping.rules", "RULE:^CN=([^,]+)$/$1/,DEFAULT");
    p.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
    p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;");
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    p.put("allow.everyone.if.no.acl.found", "false");
    p.put("super.users", "User:broker;User:" + ADMIN);
    p.put("log.dirs", logDir.toString());
    p.put("metadata.log.dir", logDir.toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "2");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "2");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    p.put("controlled.shutdown.enable", "false");
    Path props = dir.resolve("server.properties");
    try {
      Files.createDirectories(logDir);
      try (var w = Files.newBufferedWriter(props)) {
        p.store(w, "SecuredKafka");
      }
      Files.writeString(dir.resolve("logback.xml"),
          "<configuration><appender name=\"O\" class=\"ch.qos.logback.core.ConsoleAppender\"><encoder><pattern>%d %-5level %logger{20} %msg%n"
              + "</pattern></encoder></appender><root level=\"WARN\"><appender-ref ref=\"O\"/></root></configuration>\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the broker's files under " + dir, e);
    }
    format(logDir, controllerPort);
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=" + dir.resolve("logback.xml"),
        "-cp", System.getProperty("java.class.path"), KafkaChild.class.getName(), props.toString()));
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("broker.log").toFile()).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the broker: " + cmd, e);
    }
    awaitReady();
  }

  private void format(Path logDir, int controllerPort) {
    List<String> scram = new ArrayList<>();
    passwords.forEach((user, password) -> scram.add("SCRAM-SHA-512=[name=" + user + ",password=" + password + "]"));
    try {
      new Formatter()
          .setPrintStream(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setNodeId(1)
          .setClusterId(Uuid.randomUuid().toString())
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .setScramArguments(scram)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format the broker's storage at " + logDir + " (controller port " + controllerPort + ")", e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    Map<String, Object> c = new LinkedHashMap<>(scramClient(ADMIN));
    c.put("bootstrap.servers", saslBootstrap());
    c.put("request.timeout.ms", 3000);
    c.put("default.api.timeout.ms", 5000);
    admin = Admin.create(c);
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("the broker exited with " + process.exitValue() + ": " + logTail());
      }
      try {
        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (Exception notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the broker did not answer within " + START_TIMEOUT.toSeconds() + " s: " + notYet + "; " + logTail());
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for the broker", e);
      }
    }
  }

  /** The last lines of the broker's log. */
  public String logTail() {
    try {
      List<String> lines = Files.readAllLines(dir.resolve("broker.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** The SASL_SSL listener. */
  public String saslBootstrap() {
    return "127.0.0.1:" + saslPort;
  }

  /** The SSL listener that requires a client certificate. */
  public String mtlsBootstrap() {
    return "127.0.0.1:" + mtlsPort;
  }

  /** The CA's certificate (PEM): what clients trust. */
  public Path caFile() {
    return caFile;
  }

  public TestCa ca() {
    return ca;
  }

  /** The SCRAM password of {@code user}. */
  public String password(String user) {
    String p = passwords.get(user);
    if (p == null) {
      throw new IllegalArgumentException("no SCRAM user " + user + ": known " + passwords.keySet());
    }
    return p;
  }

  /** Client settings (no bootstrap) of SCRAM user {@code user} on the SASL_SSL listener. */
  public Map<String, String> scramClient(String user) {
    return scramClient(user, password(user));
  }

  /** Client settings with any password (a wrong one, for a test of the refusal). */
  public Map<String, String> scramClient(String user, String password) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("security.protocol", "SASL_SSL");
    m.put("sasl.mechanism", "SCRAM-SHA-512");
    m.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
        + "\" password=\"" + password + "\";");
    m.put("ssl.truststore.type", "PEM");
    m.put("ssl.truststore.location", caFile.toString());
    return m;
  }

  /** Client settings (no bootstrap) of a client certificate {@code CN=name}, issued now, on the mTLS listener. */
  public Map<String, String> mtlsClient(String name) {
    TestCa.PemFiles f = ca.client(dir.resolve("certs"), name);
    Map<String, String> m = new LinkedHashMap<>();
    m.put("security.protocol", "SSL");
    m.put("ssl.keystore.type", "PEM");
    m.put("ssl.keystore.location", f.keystore().toString());
    m.put("ssl.truststore.type", "PEM");
    m.put("ssl.truststore.location", caFile.toString());
    return m;
  }

  /** Allows {@code User:principal} {@code operations} on a resource ({@code name} literal, or a prefix). */
  public void allow(String principal, ResourceType type, String name, PatternType pattern, AclOperation... operations) {
    List<AclBinding> bindings = new ArrayList<>();
    for (AclOperation op : operations) {
      bindings.add(new AclBinding(new ResourcePattern(type, name, pattern),
          new AccessControlEntry("User:" + principal, "*", op, AclPermissionType.ALLOW)));
    }
    try {
      admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create ACLs " + bindings + ": " + e, e);
    }
  }

  /** An admin client of the super user (the caller must not close it). */
  public Admin admin() {
    return admin;
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
      admin = null;
    }
    if (process != null) {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      process = null;
    }
  }
}
