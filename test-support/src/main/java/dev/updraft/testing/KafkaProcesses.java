package dev.updraft.testing;

import dev.updraft.embedded.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A Kafka cluster whose every node is an OS process of its own, so that a test can kill one for real: three
 * KRaft controllers ({@code process.roles=controller}, node ids {@link #CONTROLLER_IDS}) and three brokers
 * ({@code process.roles=broker}, ids {@link #BROKER_IDS}), each {@code kafka.Kafka} run through
 * {@link KafkaChild} (which ends the node when this JVM ends in any way, SIGKILL included: nothing outlives the
 * test), configured as production is: replication 3 and {@code min.insync.replicas} 2 by default, internal topics
 * too.
 *
 * <p>{@link #kill} sends SIGKILL ({@link Process#destroyForcibly}): no shutdown hook, no controlled shutdown, no
 * flush; its peers find out by their timeouts (a broker's session: {@link #SESSION_TIMEOUT}; a controller's
 * fetch timeout, {@link #QUORUM_FETCH_TIMEOUT}). {@link #restart} starts it again on its own log directory and
 * ports and waits until the cluster has it back (a broker unfenced, a controller caught up with the quorum).
 *
 * <p>Every broker also has a second client listener, {@code PROXIED}, advertised on the port of a {@link TcpProxy}
 * of its own: a client that bootstraps through {@link #proxiedBootstrapServers()} reaches every broker only through
 * the proxies, while brokers replicate and other clients connect directly (as {@link KafkaCluster#startProxied}).
 *
 * <p>Not thread-safe: start, kill, restart and close from the test's thread.
 */
public final class KafkaProcesses implements AutoCloseable {
  public static final List<Integer> BROKER_IDS = List.of(1, 2, 3);
  public static final List<Integer> CONTROLLER_IDS = List.of(101, 102, 103);
  /** After this long without a heartbeat the active controller fences a broker (its partitions get new leaders). */
  public static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  /** After this long without the leader's answer a controller starts an election ({@code controller.quorum.fetch.timeout.ms}). */
  public static final Duration QUORUM_FETCH_TIMEOUT = Duration.ofSeconds(2);
  /** How often a broker heartbeats to the active controller ({@code broker.heartbeat.interval.ms}). */
  public static final Duration HEARTBEAT = Duration.ofMillis(500);
  /** How long a follower's fetch waits at most for new records ({@code replica.fetch.wait.max.ms}, Kafka's default). */
  public static final Duration REPLICA_FETCH_WAIT = Duration.ofMillis(500);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private final Path dir;
  private final String clusterId = Uuid.randomUuid().toString();
  private final SortedMap<Integer, Integer> ports = new TreeMap<>();
  private final SortedMap<Integer, Integer> proxiedPorts = new TreeMap<>();
  private final SortedMap<Integer, TcpProxy> proxies = new TreeMap<>();
  private final SortedMap<Integer, Process> processes = new TreeMap<>();
  private Admin admin;

  private KafkaProcesses(Path dir) {
    this.dir = dir;
  }

  /** Formats the six nodes under {@code dir}, starts them all at once and waits until the three brokers are up. */
  public static KafkaProcesses start(Path dir) {
    KafkaProcesses k = new KafkaProcesses(dir);
    try {
      for (int id : CONTROLLER_IDS) {
        k.ports.put(id, Ports.freePort());
      }
      for (int id : BROKER_IDS) {
        k.ports.put(id, Ports.freePort());
        k.proxiedPorts.put(id, Ports.freePort());
        int target = k.proxiedPorts.get(id);
        k.proxies.put(id, TcpProxy.start("kafka-" + id, () -> target));
      }
      for (int id : k.ports.keySet()) {
        k.write(id);
      }
      for (int id : k.ports.keySet()) {
        k.launch(id);
      }
      Properties a = new Properties();
      a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrapServers());
      a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000);
      k.admin = Admin.create(a);
      k.awaitBrokers(Set.copyOf(BROKER_IDS), START_TIMEOUT);
      return k;
    } catch (RuntimeException e) {
      k.close();
      throw e;
    }
  }

  private static boolean controller(int id) {
    return CONTROLLER_IDS.contains(id);
  }

  private Path nodeDir(int id) {
    return dir.resolve((controller(id) ? "controller-" : "broker-") + id);
  }

  private void write(int id) {
    Path nd = nodeDir(id);
    Path logDir = nd.resolve("data");
    List<String> voters = new ArrayList<>();
    for (int c : CONTROLLER_IDS) {
      voters.add(c + "@127.0.0.1:" + ports.get(c));
    }
    Properties p = new Properties();
    p.put("node.id", Integer.toString(id));
    p.put("controller.quorum.voters", String.join(",", voters));
    p.put("controller.listener.names", "CONTROLLER");
    p.put("log.dirs", logDir.toString());
    p.put("metadata.log.dir", logDir.toString());
    p.put("controller.quorum.fetch.timeout.ms", Long.toString(QUORUM_FETCH_TIMEOUT.toMillis()));
    p.put("controller.quorum.election.timeout.ms", "1000");
    p.put("broker.heartbeat.interval.ms", Long.toString(HEARTBEAT.toMillis()));
    p.put("replica.fetch.wait.max.ms", Long.toString(REPLICA_FETCH_WAIT.toMillis()));
    p.put("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT.toMillis()));
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("background.threads", "2");
    if (controller(id)) {
      p.put("process.roles", "controller");
      p.put("listeners", "CONTROLLER://127.0.0.1:" + ports.get(id));
      p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT");
    } else {
      p.put("process.roles", "broker");
      p.put("listeners", "PLAINTEXT://127.0.0.1:" + ports.get(id) + ",PROXIED://127.0.0.1:" + proxiedPorts.get(id));
      p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + ports.get(id) + ",PROXIED://127.0.0.1:" + proxies.get(id).port());
      p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT");
      p.put("inter.broker.listener.name", "PLAINTEXT");
      p.put("default.replication.factor", "3");
      p.put("min.insync.replicas", "2");
      p.put("offsets.topic.replication.factor", "3");
      p.put("offsets.topic.num.partitions", "4");
      p.put("transaction.state.log.replication.factor", "3");
      p.put("transaction.state.log.min.isr", "2");
      p.put("transaction.state.log.num.partitions", "4");
      p.put("share.coordinator.state.topic.replication.factor", "3");
      p.put("share.coordinator.state.topic.min.isr", "2");
      p.put("group.initial.rebalance.delay.ms", "0");
      p.put("auto.create.topics.enable", "false");
      p.put("num.replica.fetchers", "1");
      p.put("log.cleaner.threads", "1");
      // small files: a restart after SIGKILL recovers (re-reads) the unflushed segment, keep it short
      p.put("log.segment.bytes", Integer.toString(8 * 1024 * 1024));
      p.put("log.index.size.max.bytes", Integer.toString(1024 * 1024));
    }
    try {
      Files.createDirectories(logDir);
      try (var w = Files.newBufferedWriter(nd.resolve("server.properties"))) {
        p.store(w, "KafkaProcesses node " + id);
      }
      Files.writeString(nd.resolve("logback.xml"),
          "<configuration><appender name=\"O\" class=\"ch.qos.logback.core.ConsoleAppender\"><encoder><pattern>%d %-5level %logger{20} %msg%n"
              + "</pattern></encoder></appender><root level=\"WARN\"><appender-ref ref=\"O\"/></root></configuration>\n");
      new Formatter()
          .setPrintStream(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))
          .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
          .setNodeId(id)
          .setClusterId(clusterId)
          .setControllerListenerName("CONTROLLER")
          .setMetadataLogDirectory(logDir.toString())
          .setDirectories(List.of(logDir.toString()))
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot prepare Kafka node " + id + " under " + nd + ": " + e, e);
    }
  }

  private void launch(int id) {
    Path nd = nodeDir(id);
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        controller(id) ? "-Xmx160m" : "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
        "-Dlogback.configurationFile=" + nd.resolve("logback.xml"), "-cp", System.getProperty("java.class.path"),
        KafkaChild.class.getName(), nd.resolve("server.properties").toString()));
    try {
      // a pipe on stdin: KafkaChild halts the node when it closes, i.e. when this JVM ends however it ends
      processes.put(id, new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(nd.resolve("node.log").toFile())).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start Kafka node " + id + ": " + cmd, e);
    }
  }

  /** Every broker, directly. */
  public String bootstrapServers() {
    List<String> out = new ArrayList<>();
    for (int id : BROKER_IDS) {
      out.add("127.0.0.1:" + ports.get(id));
    }
    return String.join(",", out);
  }

  /** Every broker through its proxy. */
  public String proxiedBootstrapServers() {
    List<String> out = new ArrayList<>();
    for (TcpProxy p : proxies.values()) {
      out.add("127.0.0.1:" + p.port());
    }
    return String.join(",", out);
  }

  /** The proxies in front of the brokers' {@code PROXIED} listeners, by broker id. */
  public Map<Integer, TcpProxy> proxies() {
    return proxies;
  }

  /** The OS process id of node {@code id} (its last start). */
  public long pid(int id) {
    return process(id).pid();
  }

  public boolean alive(int id) {
    return process(id).isAlive();
  }

  /** SIGKILLs node {@code id} and waits until its process is gone. */
  public void kill(int id) {
    Process p = process(id);
    if (!p.isAlive()) {
      throw new IllegalStateException("Kafka node " + id + " is not running");
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("Kafka node " + id + " (pid " + p.pid() + ") alive 30 s after SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for node " + id + " to die", e);
    }
  }

  /** Starts killed node {@code id} again on its log directory and ports, in the background (see {@link #awaitBack}). */
  public void restart(int id) {
    if (process(id).isAlive()) {
      throw new IllegalStateException("Kafka node " + id + " is running");
    }
    launch(id);
  }

  /**
   * Waits until restarted node {@code id} is back: a broker registered and unfenced, a controller a voter that
   * fetched from the leader up to its end since {@code sinceMillis} (epoch ms, the restart's time).
   */
  public void awaitBack(int id, long sinceMillis, Duration timeout) {
    if (controller(id)) {
      await("controller " + id + " caught up with the quorum", () -> {
        QuorumInfo q = quorum();
        return q.voters().stream().anyMatch(v -> v.replicaId() == id && v.lastCaughtUpTimestamp().orElse(0) >= sinceMillis);
      }, timeout, id);
    } else {
      awaitBrokers(Set.of(id), timeout);
    }
  }

  private void awaitBrokers(Set<Integer> ids, Duration timeout) {
    await("brokers " + ids + " registered and unfenced", () -> {
      Set<Integer> up = new HashSet<>();
      for (Node n : admin.describeCluster().nodes().get(5, TimeUnit.SECONDS)) {
        up.add(n.id());
      }
      return up.containsAll(ids);
    }, timeout, ids.iterator().next());
  }

  /** The KRaft quorum as the active controller describes it. */
  public QuorumInfo quorum() {
    try {
      return admin.describeMetadataQuorum().quorumInfo().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot describe the metadata quorum: " + e, e);
    }
  }

  /** The active controller's node id. */
  public int activeController() {
    return quorum().leaderId();
  }

  /** The leader of {@code topic}'s {@code partition} now, -1 when it has none. */
  public int leader(String topic, int partition) {
    Node leader = describe(topic).partitions().get(partition).leader();
    return leader == null || leader.isEmpty() ? -1 : leader.id();
  }

  /** The topic as the cluster describes it. */
  public TopicDescription describe(String topic) {
    try {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    } catch (Exception e) {
      throw new IllegalStateException("cannot describe topic=" + topic + ": " + e, e);
    }
  }

  /** Waits until every partition of {@code topic} has all its replicas in sync; fails after {@code timeout}. */
  public void awaitInSync(String topic, Duration timeout) {
    await("every partition of " + topic + " fully in sync", () -> {
      for (TopicPartitionInfo p : describe(topic).partitions()) {
        if (p.isr().size() != p.replicas().size() || p.leader() == null || p.leader().isEmpty()) {
          return false;
        }
      }
      return true;
    }, timeout, -1);
  }

  /** The cluster's admin client (the caller must not close it). */
  public Admin admin() {
    return admin;
  }

  /** The last lines of node {@code id}'s output. */
  public String logTail(int id) {
    try {
      List<String> lines = Files.readAllLines(nodeDir(id).resolve("node.log"));
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private void await(String what, Check check, Duration timeout, int node) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (true) {
      for (Map.Entry<Integer, Process> e : processes.entrySet()) {
        if (e.getKey() == node && !e.getValue().isAlive()) {
          throw new IllegalStateException("Kafka node " + node + " exited with " + e.getValue().exitValue() + " while waiting for "
              + what + ":\n" + logTail(node));
        }
      }
      try {
        if (check.holds()) {
          return;
        }
      } catch (Exception notYet) {
        last = notYet;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("not within " + timeout.toSeconds() + " s: " + what + " (last error: " + last + ")"
            + (node >= 0 ? "; node " + node + ":\n" + logTail(node) : ""));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for: " + what, e);
      }
    }
  }

  private Process process(int id) {
    Process p = processes.get(id);
    if (p == null) {
      throw new IllegalArgumentException("no Kafka node " + id + ": brokers " + BROKER_IDS + ", controllers " + CONTROLLER_IDS);
    }
    return p;
  }

  /** SIGKILLs every node (the data is the test's temporary directory's) and closes the proxies. Idempotent. */
  @Override
  public void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(2));
      admin = null;
    }
    for (Process p : processes.values()) {
      p.destroyForcibly();
    }
    for (Process p : processes.values()) {
      try {
        p.waitFor(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    proxies.values().forEach(TcpProxy::close);
  }
}
