package dev.updraft.ingester;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one consumer loop does when the group moves partitions: before handing partitions over it writes
 * what it holds (once); newly assigned ones wait, paused, for their stored offsets; lost ones (the group
 * went on without this consumer) drop everything uncommitted.
 *
 * <p>Runs inside {@code poll()} on the loop's consumer thread.
 */
final class Rebalance implements ConsumerRebalanceListener {
  private static final Logger LOG = LoggerFactory.getLogger(Rebalance.class);

  private final IngestLoop loop;
  private final Partitions partitions;
  private final String topic;

  Rebalance(IngestLoop loop, Partitions partitions, String topic) {
    this.loop = loop;
    this.partitions = partitions;
    this.topic = topic;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
    if (loop.closing() || revoked.isEmpty()) {
      partitions.forget(revoked);
      return;
    }
    loop.settleBeforeHandOver();
    partitions.forget(revoked);
    LOG.info("partitions revoked: topic={} partitions={}", topic, ids(revoked));
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
    if (assigned.isEmpty()) {
      return;
    }
    partitions.assigned(assigned);
    LOG.info("partitions assigned: topic={} partitions={}", topic, ids(assigned));
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> lost) {
    if (loop.closing()) {
      partitions.forget(lost);
      return;
    }
    LOG.warn("partitions lost: topic={} partitions={}; dropping uncommitted check-ins", topic, ids(lost));
    loop.resetToStored();
    partitions.forget(lost);
  }

  private static List<Integer> ids(Collection<TopicPartition> tps) {
    List<Integer> ids = new ArrayList<>();
    for (TopicPartition tp : tps) {
      ids.add(tp.partition());
    }
    ids.sort(null);
    return ids;
  }
}
