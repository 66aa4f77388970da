package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.EVENTS_PARTITIONS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.MIN_INSYNC_REPLICAS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.REPLICATION_FACTOR;
import static dev.updraft.controlplane.config.ControlPlaneFlags.TELEMETRY_PARTITIONS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.TELEMETRY_RETENTION;
import static dev.updraft.controlplane.config.ControlPlaneFlags.TRANSACTIONAL_ID;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.time.Duration;

/**
 * How the control plane writes to Kafka and shapes the topics it creates, validated with the rest of
 * {@link ControlPlaneConfig}. Immutable.
 *
 * @param transactionalId the writer's transactional id ({@code <topic-prefix>updraft-control-plane} by default)
 * @param replicationFactor 0 when not given: chosen from the cluster's size when the topics are created (min(3, brokers))
 * @param minInsyncReplicas 0 when not given: min(2, replication factor)
 */
public record TopicFlags(
    String transactionalId, int eventsPartitions, int telemetryPartitions, Duration telemetryRetention, int replicationFactor,
    int minInsyncReplicas) {

  static TopicFlags from(Settings s, String topicPrefix) {
    String id = TRANSACTIONAL_ID.read(s);
    int replication = replicas(s, REPLICATION_FACTOR.name());
    int minInsync = replicas(s, MIN_INSYNC_REPLICAS.name());
    if (replication > 0 && minInsync > replication) {
      throw new ConfigException(
          "--min-insync-replicas (UPDRAFT_MIN_INSYNC_REPLICAS) must not exceed --replication-factor: got " + minInsync
              + " > " + replication + " (every acks=all write would be refused)");
    }
    return new TopicFlags(id == null ? topicPrefix + "updraft-control-plane" : id, EVENTS_PARTITIONS.read(s),
        TELEMETRY_PARTITIONS.read(s), TELEMETRY_RETENTION.read(s), replication, minInsync);
  }

  private static int replicas(Settings s, String flag) {
    return s.has(flag) ? s.integer(flag, 0, 1, Short.MAX_VALUE) : 0;
  }
}
