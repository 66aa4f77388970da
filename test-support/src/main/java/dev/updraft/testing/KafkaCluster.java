package dev.updraft.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.metadata.BrokerState;

/**
 * A Kafka cluster of its own for a test, in this JVM ({@code KafkaClusterTestKit}, KRaft): one broker
 * (combined with its controller), or several brokers beside one controller, configured as production is
 * (internal topics replicated {@code min(3, brokers)} times with {@code min.insync.replicas}
 * {@code min(2, brokers)}), with brokers that a test can stop and start again.
 *
 * <p>{@link #stopBroker} stops a broker as a crash would for its peers: no controlled shutdown, so its
 * partitions keep it as leader until the controller fences it after the session timeout (3 s here), as
 * after a lost machine. {@link #startBroker} starts it again on the same data and ports.
 *
 * <p>{@link #startProxied} gives every broker a second client listener, {@code PROXIED}, advertised on the
 * port of a {@link TcpProxy} of its own: clients that bootstrap through {@link #proxiedBootstrapServers()}
 * reach every broker only through the proxies (Kafka answers metadata with the addresses of the listener
 * asked), while the brokers replicate, and other clients connect, directly. So {@link TcpProxy#cut()} on
 * all of them cuts those clients off from the whole cluster.
 *
 * <p>Not thread-safe: start, stop and close from the test's thread.
 */
public final class KafkaCluster implements AutoCloseable {
  /** The listener clients and brokers use directly (the test kit's default broker listener). */
  static final String DIRECT = "EXTERNAL";
  static final String PROXIED = "PROXIED";
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

  private final KafkaClusterTestKit kit;
  private final SortedMap<Integer, TcpProxy> proxies;
  private final Map<Integer, Boolean> running = new HashMap<>();
  private boolean closed;

  private KafkaCluster(KafkaClusterTestKit kit, SortedMap<Integer, TcpProxy> proxies) {
    this.kit = kit;
    this.proxies = proxies;
    for (Integer id : kit.brokers().keySet()) {
      running.put(id, true);
    }
  }

  /** {@code brokers} brokers (1: combined with the controller; more: beside one controller), ready. */
  public static KafkaCluster start(int brokers) {
    return start(brokers, false);
  }

  /** Like {@link #start(int)}, every broker also reachable through a {@link TcpProxy} of its own. */
  public static KafkaCluster startProxied(int brokers) {
    return start(brokers, true);
  }

  private static KafkaCluster start(int brokers, boolean proxied) {
    if (brokers < 1 || brokers > 5) {
      throw new IllegalArgumentException("brokers must be 1..5: brokers=" + brokers);
    }
    boolean combined = brokers == 1;
    SortedMap<Integer, TcpProxy> proxies = new TreeMap<>();
    AtomicReference<Map<Integer, BrokerServer>> brokerServers = new AtomicReference<>(Map.of());
    Map<Integer, Map<String, String>> perServer = new HashMap<>();
    if (proxied) {
      for (int id = 0; id < brokers; id++) { // the test kit numbers brokers from 0
        int node = id;
        TcpProxy proxy = TcpProxy.start("kafka-" + id, () -> brokerServers.get().get(node).boundPort(ListenerName.normalised(PROXIED)));
        proxies.put(id, proxy);
        Map<String, String> p = new HashMap<>();
        p.put("listeners", DIRECT + "://localhost:0," + PROXIED + "://127.0.0.1:0" + (combined ? ",CONTROLLER://localhost:0" : ""));
        // port 0 is replaced by the bound port when the broker registers; the proxied one stays the proxy's
        p.put("advertised.listeners", DIRECT + "://localhost:0," + PROXIED + "://127.0.0.1:" + proxy.port());
        perServer.put(id, p);
      }
    }
    int replicas = Math.min(3, brokers);
    int minIsr = Math.min(2, brokers);
    KafkaClusterTestKit kit;
    try {
      TestKitNodes nodes =
          new TestKitNodes.Builder()
              .setCombined(combined)
              .setNumBrokerNodes(brokers)
              .setNumControllerNodes(1)
              .setPerServerProperties(perServer)
              .build();
      KafkaClusterTestKit.Builder b = new KafkaClusterTestKit.Builder(nodes);
      for (Map.Entry<String, String> e : serverProperties(replicas, minIsr, proxied).entrySet()) {
        b.setConfigProp(e.getKey(), e.getValue());
      }
      kit = b.build();
      kit.format();
      kit.startup();
      kit.waitForReadyBrokers();
    } catch (Exception e) {
      proxies.values().forEach(TcpProxy::close);
      throw new IllegalStateException("cannot start a test Kafka cluster of " + brokers + " brokers: " + e.getMessage(), e);
    }
    brokerServers.set(kit.brokers());
    if (proxied && !kit.brokers().keySet().equals(proxies.keySet())) {
      KafkaCluster c = new KafkaCluster(kit, proxies);
      c.close();
      throw new IllegalStateException("broker ids " + kit.brokers().keySet() + " are not the expected " + proxies.keySet());
    }
    return new KafkaCluster(kit, proxies);
  }

  private static Map<String, String> serverProperties(int replicas, int minIsr, boolean proxied) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("offsets.topic.replication.factor", Integer.toString(replicas));
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.replication.factor", Integer.toString(replicas));
    p.put("transaction.state.log.min.isr", Integer.toString(minIsr));
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.replication.factor", Integer.toString(replicas));
    p.put("share.coordinator.state.topic.min.isr", Integer.toString(minIsr));
    p.put("default.replication.factor", Integer.toString(replicas));
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "false");
    // a stopped broker is a lost one: no controlled shutdown, the controller fences it after the session timeout
    p.put("controlled.shutdown.enable", "false");
    p.put("broker.heartbeat.interval.ms", "500");
    p.put("broker.session.timeout.ms", Long.toString(SESSION_TIMEOUT.toMillis()));
    // a small machine runs several brokers and the services under test
    p.put("num.network.threads", "2");
    p.put("num.io.threads", "2");
    p.put("num.replica.fetchers", "1");
    p.put("background.threads", "2");
    p.put("log.cleaner.threads", "1");
    if (proxied) {
      p.put("listener.security.protocol.map", DIRECT + ":PLAINTEXT,CONTROLLER:PLAINTEXT," + PROXIED + ":PLAINTEXT");
    }
    return p;
  }

  /** Every broker, directly. */
  public String bootstrapServers() {
    return kit.bootstrapServers();
  }

  /** Every broker through its proxy ({@link #startProxied} only). */
  public String proxiedBootstrapServers() {
    if (proxies.isEmpty()) {
      throw new IllegalStateException("this cluster was started without proxies (KafkaCluster.startProxied)");
    }
    List<String> out = new ArrayList<>();
    for (TcpProxy p : proxies.values()) {
      out.add("127.0.0.1:" + p.port());
    }
    return String.join(",", out);
  }

  /** The proxies in front of the brokers, by broker id (empty unless {@link #startProxied}). */
  public Map<Integer, TcpProxy> proxies() {
    return proxies;
  }

  /** The broker ids. */
  public List<Integer> brokerIds() {
    return new ArrayList<>(kit.brokers().keySet());
  }

  /** Stops broker {@code id} without a controlled shutdown (see the class comment); returns once it stopped. */
  public void stopBroker(int id) {
    BrokerServer b = broker(id);
    if (!running.get(id)) {
      throw new IllegalStateException("broker " + id + " is already stopped");
    }
    b.shutdown();
    b.awaitShutdown();
    running.put(id, false);
  }

  /** Starts broker {@code id} again on its data and ports; returns once the controller has it unfenced. */
  public void startBroker(int id) {
    BrokerServer b = broker(id);
    if (running.get(id)) {
      throw new IllegalStateException("broker " + id + " is already running");
    }
    b.startup();
    running.put(id, true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (b.brokerState() != BrokerState.RUNNING) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("broker " + id + " not running 60 s after its start: " + b.brokerState());
      }
      sleep(50);
    }
  }

  /** The leader of {@code topic}'s {@code partition} now, -1 when it has none. */
  public int leader(String topic, int partition) {
    TopicPartitionInfo p = describe(topic).partitions().get(partition);
    Node leader = p.leader();
    return leader == null || leader.isEmpty() ? -1 : leader.id();
  }

  /** {@code partition -> in-sync replica ids}. */
  public Map<Integer, List<Integer>> inSyncReplicas(String topic) {
    Map<Integer, List<Integer>> out = new TreeMap<>();
    for (TopicPartitionInfo p : describe(topic).partitions()) {
      List<Integer> ids = new ArrayList<>();
      p.isr().forEach(n -> ids.add(n.id()));
      out.put(p.partition(), ids);
    }
    return out;
  }

  /** The topic as the cluster describes it. */
  public TopicDescription describe(String topic) {
    try (Admin admin = admin()) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    } catch (Exception e) {
      throw new IllegalStateException("cannot describe topic=" + topic + ": " + e.getMessage(), e);
    }
  }

  /** Waits until every partition of {@code topic} has all its replicas in sync; fails after {@code timeout}. */
  public void awaitInSync(String topic, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      TopicDescription d = describe(topic);
      boolean all = true;
      for (TopicPartitionInfo p : d.partitions()) {
        all &= p.isr().size() == p.replicas().size();
      }
      if (all) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("topic " + topic + " not fully in sync within " + timeout.toSeconds() + " s: " + d);
      }
      sleep(100);
    }
  }

  /** An admin client on the direct listener; the caller closes it. */
  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
    return Admin.create(p);
  }

  private BrokerServer broker(int id) {
    BrokerServer b = kit.brokers().get(id);
    if (b == null) {
      throw new IllegalArgumentException("no broker " + id + ": brokers are " + kit.brokers().keySet());
    }
    return b;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** Stops the cluster and its proxies and deletes its data. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return; // KafkaClusterTestKit.close() is not idempotent
    }
    closed = true;
    proxies.values().forEach(TcpProxy::close);
    try {
      kit.close();
    } catch (Exception e) {
      System.err.println("test Kafka cluster did not close cleanly: " + e);
    }
  }
}
