package dev.updraft.ingester.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * How the ingester's loops read their lag: from their own fetch responses where they can, so that they never
 * queue a request behind a fetch the broker is holding (the loop would stall for up to the fetch's wait).
 */
class LogEndsTest {
  private static final TopicPartition FETCHED = new TopicPartition("updraft.telemetry", 0);
  private static final TopicPartition PAUSED = new TopicPartition("updraft.telemetry", 1);

  /**
   * Kafka's mock consumer (pure logic: no broker), remembering which partitions were asked of the broker; the
   * partitions in {@code unfetched} have no fetch response yet, so the consumer knows no lag for them.
   */
  private static final class Recording extends MockConsumer<byte[], byte[]> {
    final List<Collection<TopicPartition>> asked = new ArrayList<>();
    final Set<TopicPartition> unfetched = new HashSet<>();

    Recording() {
      super("earliest");
    }

    @Override
    public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
      asked.add(List.copyOf(partitions));
      return super.endOffsets(partitions, timeout);
    }

    @Override
    public synchronized OptionalLong currentLag(TopicPartition partition) {
      return unfetched.contains(partition) ? OptionalLong.empty() : super.currentLag(partition);
    }
  }

  /** Both partitions assigned, their logs ending at 100 and 50, positioned at the given offsets. */
  private static Recording consumer(long fetchedAt, long pausedAt) {
    Recording consumer = new Recording();
    consumer.assign(List.of(FETCHED, PAUSED));
    consumer.updateEndOffsets(Map.of(FETCHED, 100L, PAUSED, 50L));
    consumer.seek(FETCHED, fetchedAt);
    consumer.seek(PAUSED, pausedAt);
    return consumer;
  }

  @Test
  void readsTheLogEndOfAFetchedPartitionFromItsFetchesAndAsksTheBrokerOnlyForPausedOnes() {
    Recording consumer = consumer(40, 10);
    consumer.pause(List.of(PAUSED)); // PostgreSQL down: no fetches, so its fetches' view of the log end is stale

    Map<TopicPartition, Long> ends = ReadCommittedConsumer.logEnds(consumer, Set.of(FETCHED, PAUSED));

    assertThat(ends).containsEntry(FETCHED, 100L).containsEntry(PAUSED, 50L);
    assertThat(consumer.asked).as("partitions asked of the broker, per request").containsExactly(List.of(PAUSED));
  }

  @Test
  void asksNothingWhenEveryPartitionIsBeingFetched() {
    Recording consumer = consumer(100, 45);

    assertThat(ReadCommittedConsumer.logEnds(consumer, Set.of(FETCHED, PAUSED))).containsEntry(FETCHED, 100L)
        .containsEntry(PAUSED, 50L);
    assertThat(consumer.asked).as("no request queued behind a waiting fetch").isEmpty();
  }

  @Test
  void asksTheBrokerForAPartitionNotFetchedYet() {
    Recording consumer = consumer(100, 10);
    consumer.unfetched.add(PAUSED); // just assigned: its first fetch has not returned

    Map<TopicPartition, Long> ends = ReadCommittedConsumer.logEnds(consumer, Set.of(FETCHED, PAUSED));

    assertThat(ends).as("its lag counts from the start, not as zero").containsEntry(PAUSED, 50L).containsEntry(FETCHED, 100L);
    assertThat(consumer.asked).containsExactly(List.of(PAUSED));
  }
}
