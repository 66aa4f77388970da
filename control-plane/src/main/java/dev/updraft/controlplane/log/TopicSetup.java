package dev.updraft.controlplane.log;

import dev.updraft.common.KafkaClientConfig;
import dev.updraft.events.Topics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the control plane's topics when they are missing, with the replication Updraft chooses, and
 * warns at start when an existing {@code updraft.events} would not survive the loss of one broker.
 *
 * <p>Replication: {@code --replication-factor} when given, otherwise 3 on a cluster of three or more
 * brokers and the broker count below that (one broker: 1); {@code min.insync.replicas} is
 * {@code --min-insync-replicas} when given, otherwise {@code min(2, replication factor)}. With
 * {@code acks=all} (the control plane's transactions, the edges' check-ins) a write is then acknowledged
 * only once two brokers have it, so losing one broker loses no acknowledged write. Existing topics are
 * left exactly as they are (their partitions, replication and configs are the operator's).
 *
 * <p>Not thread-safe; used once at start on the command thread.
 */
public final class TopicSetup {
  private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);

  /** A topic config a managed cluster may refuse; the topic is then created without it. */
  static final String RECORD_LIMIT = "max.message.bytes";

  /** The largest replication factor Updraft picks by itself. */
  static final int DEFAULT_MAX_REPLICATION = 3;

  /** The largest {@code min.insync.replicas} Updraft picks by itself. */
  static final int DEFAULT_MAX_MIN_INSYNC = 2;

  private TopicSetup() {}

  /**
   * A topic to create when missing.
   *
   * @param configs topic configs besides {@code min.insync.replicas} (which comes from the replication)
   */
  public record Spec(String name, int partitions, Map<String, String> configs) {
    public Spec {
      configs = Map.copyOf(configs);
    }
  }

  /**
   * Updraft's topics as the control plane creates them (and {@code updraft restore}, which must create
   * them the same way): the event log kept forever with records up to {@link EventLog#RECORD_LIMIT_BYTES}, the
   * telemetry and the error reports apps send ({@code updraft.errors}) for {@code telemetryRetention}, and the compacted snapshots in one partition (a reader reads it
   * whole; compaction keeps one manifest per app and one marker per events partition).
   */
  public static List<Spec> updraftTopics(String prefix, int eventsPartitions, int telemetryPartitions, Duration telemetryRetention) {
    Map<String, String> events = new LinkedHashMap<>();
    events.put("retention.ms", "-1");
    events.put("retention.bytes", "-1");
    events.put("cleanup.policy", "delete");
    events.put(RECORD_LIMIT, Integer.toString(EventLog.RECORD_LIMIT_BYTES)); // a large app's publish, a re-signing
    Map<String, String> telemetry = new LinkedHashMap<>();
    telemetry.put("retention.ms", Long.toString(telemetryRetention.toMillis()));
    telemetry.put("cleanup.policy", "delete");
    Map<String, String> snapshots = new LinkedHashMap<>();
    snapshots.put("cleanup.policy", "compact");
    snapshots.put("segment.ms", "3600000");
    snapshots.put(RECORD_LIMIT, "1048576");
    return List.of(
        new Spec(Topics.events(prefix), eventsPartitions, events),
        new Spec(Topics.telemetry(prefix), telemetryPartitions, telemetry),
        new Spec(Topics.errors(prefix), telemetryPartitions, telemetry),
        new Spec(Topics.snapshots(prefix), 1, snapshots));
  }

  /**
   * The replication a new topic gets.
   *
   * @param factor replicas per partition
   * @param minInsync {@code min.insync.replicas}
   */
  record Replication(int factor, int minInsync) {
    /**
     * The replication for a cluster of {@code brokers} brokers.
     *
     * @param configuredFactor {@code --replication-factor}, 0 when not given
     * @param configuredMinInsync {@code --min-insync-replicas}, 0 when not given
     * @throws IllegalStateException when the configuration asks for more than the cluster can give
     */
    static Replication choose(int configuredFactor, int configuredMinInsync, int brokers, String bootstrap) {
      if (brokers < 1) {
        throw new IllegalStateException("the Kafka cluster at bootstrap=" + bootstrap + " reports no brokers");
      }
      int factor = configuredFactor > 0 ? configuredFactor : Math.min(DEFAULT_MAX_REPLICATION, brokers);
      if (factor > brokers) {
        throw new IllegalStateException(
            "--replication-factor " + factor + " needs at least " + factor + " brokers: the Kafka cluster at bootstrap="
                + bootstrap + " has " + brokers + " (give a smaller --replication-factor, or leave it unset to use min(3, brokers))");
      }
      int minInsync = configuredMinInsync > 0 ? configuredMinInsync : Math.min(DEFAULT_MAX_MIN_INSYNC, factor);
      if (minInsync > factor) {
        throw new IllegalStateException(
            "--min-insync-replicas " + minInsync + " is more than the replication factor " + factor
                + ": every acks=all write would be refused (brokers=" + brokers + ")");
      }
      return new Replication(factor, minInsync);
    }
  }

  /**
   * Creates each of {@code topics} that does not exist yet, then checks {@code eventsTopic}: when it has
   * one replica on a cluster of several brokers, logs a warning (the log is lost with that broker).
   *
   * @param configuredFactor {@code --replication-factor}, 0 when not given
   * @param configuredMinInsync {@code --min-insync-replicas}, 0 when not given
   * @throws IllegalStateException when a topic cannot be created (too few brokers for the replication
   *     asked, Kafka unreachable within {@code timeout})
   */
  public static void ensure(
      String bootstrap, List<Spec> topics, String eventsTopic, int configuredFactor, int configuredMinInsync, Duration timeout) {
    ensure(bootstrap, KafkaClientConfig.none(), topics, eventsTopic, configuredFactor, configuredMinInsync, timeout);
  }

  /** Like {@link #ensure(String, List, String, int, int, Duration)}, the admin client with the {@code --kafka-config} settings. */
  public static void ensure(String bootstrap, KafkaClientConfig kafka, List<Spec> topics, String eventsTopic, int configuredFactor,
      int configuredMinInsync, Duration timeout) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 15_000));
    try (Admin admin = Admin.create(kafka.apply(p))) {
      int brokers = admin.describeCluster().nodes().get().size();
      Set<String> existing = admin.listTopics().names().get();
      Replication replication = null;
      for (Spec t : topics) {
        if (existing.contains(t.name())) {
          continue; // left as the operator made it
        }
        if (replication == null) {
          replication = Replication.choose(configuredFactor, configuredMinInsync, brokers, bootstrap);
        }
        create(admin, bootstrap, t, replication, brokers);
      }
      warnIfFragile(admin, eventsTopic, brokers);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot set up the topics at bootstrap=" + bootstrap + ": " + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }

  private static void create(Admin admin, String bootstrap, Spec t, Replication r, int brokers) throws InterruptedException {
    Map<String, String> configs = new LinkedHashMap<>(t.configs());
    configs.put("min.insync.replicas", Integer.toString(r.minInsync()));
    NewTopic topic =
        new NewTopic(t.name(), Optional.of(t.partitions()), Optional.of((short) r.factor())).configs(configs);
    try {
      admin.createTopics(List.of(topic)).all().get();
      LOG.info(
          "created topic={} partitions={} replicationFactor={} brokers={} configs={}",
          t.name(), t.partitions(), r.factor(), brokers, configs);
    } catch (ExecutionException e) {
      if ((e.getCause() instanceof PolicyViolationException || e.getCause() instanceof InvalidConfigurationException)
          && configs.containsKey(RECORD_LIMIT)) {
        // a managed service may refuse a larger record limit: the topic is created with the cluster's, which the
        // event writer then reads and warns about (a large publish gets 413 event-too-large naming it)
        LOG.warn("the cluster at bootstrap={} refused topic={} with {}={} ({}): creating it with the cluster's default",
            bootstrap, t.name(), RECORD_LIMIT, configs.get(RECORD_LIMIT), e.getCause().getMessage());
        Map<String, String> without = new LinkedHashMap<>(t.configs());
        without.remove(RECORD_LIMIT);
        create(admin, bootstrap, new Spec(t.name(), t.partitions(), without), r, brokers);
        return;
      }
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(
            "cannot create topic=" + t.name() + " (replicationFactor=" + r.factor() + ", brokers=" + brokers + ") at bootstrap="
                + bootstrap + ": " + e.getCause().getMessage(), e.getCause());
      }
    }
  }

  private static void warnIfFragile(Admin admin, String eventsTopic, int brokers)
      throws InterruptedException, ExecutionException {
    if (brokers < 2) {
      return;
    }
    TopicDescription d = admin.describeTopics(List.of(eventsTopic)).allTopicNames().get().get(eventsTopic);
    int fewest = Integer.MAX_VALUE;
    for (TopicPartitionInfo partition : d.partitions()) {
      fewest = Math.min(fewest, partition.replicas().size());
    }
    if (fewest == 1) {
      LOG.warn(
          "topic={} has replication factor 1 on a cluster of {} brokers: losing the broker that holds a partition loses"
              + " that part of the event log, the source of truth. Raise it to 3 (kafka-reassign-partitions) and set"
              + " min.insync.replicas=2; Updraft creates missing topics with min(3, brokers) replicas (--replication-factor)",
          eventsTopic, brokers);
    }
  }
}
