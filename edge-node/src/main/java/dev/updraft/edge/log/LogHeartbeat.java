package dev.updraft.edge.log;

import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the log answered the reader's last poll: it brought records, or the consumer received a fetch
 * response since the poll before (the consumer's own {@code fetch-total} metric; a caught-up consumer gets an
 * empty one at least every {@code fetch.max.wait.ms}). What the edge's staleness is counted from. Not
 * thread-safe: the reader thread only.
 */
final class LogHeartbeat {
  private static final Logger LOG = LoggerFactory.getLogger(LogHeartbeat.class);

  /** Nullable: this client version has no fetch-total (then only records count). */
  private final Metric fetchResponses;
  private double seen;

  private LogHeartbeat(Metric fetchResponses) {
    this.fetchResponses = fetchResponses;
  }

  static LogHeartbeat of(KafkaConsumer<byte[], byte[]> c) {
    for (Map.Entry<MetricName, ? extends Metric> m : c.metrics().entrySet()) {
      if (m.getKey().name().equals("fetch-total") && m.getKey().group().equals("consumer-fetch-manager-metrics")) {
        return new LogHeartbeat(m.getValue());
      }
    }
    LOG.warn("the Kafka consumer has no fetch-total metric: staleness counts from the last records only");
    return new LogHeartbeat(null);
  }

  /** Whether this poll ({@code records}: it brought some) heard from the log. */
  boolean answered(boolean records) {
    boolean answered = records;
    if (fetchResponses != null && fetchResponses.metricValue() instanceof Number) {
      double n = ((Number) fetchResponses.metricValue()).doubleValue();
      answered |= n > seen;
      seen = n;
    }
    return answered;
  }
}
