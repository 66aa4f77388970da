package dev.updraft.systemtests.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A produce quota for every client of a broker (Kafka's default {@code client-id} quota), so that a producer's
 * next request after a write waits seconds: the broker answers a produce over the quota with a throttle time
 * and then reads nothing more from that connection until it has passed, and the client waits it out too. A
 * transactional writer that has just written is so held before its commit, which makes "killed after writing,
 * before committing" a state a test can reach every time instead of by luck. Applied once a probe producer is
 * seen throttled; removed on {@link #close()}.
 */
final class ProduceQuota implements AutoCloseable {
  private static final ClientQuotaEntity EVERY_CLIENT = new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, null));
  private static final String RATE = "producer_byte_rate";

  private final Admin admin;

  private ProduceQuota(Admin admin) {
    this.admin = admin;
  }

  /**
   * Sets the quota and waits (30 s at most) until the broker throttles a probe writing to {@code probeTopic}
   * (created if absent).
   */
  static ProduceQuota everyClient(String bootstrap, long bytesPerSecond, String probeTopic) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    Admin admin = Admin.create(p);
    try {
      try {
        admin.createTopics(List.of(new NewTopic(probeTopic, 1, (short) 1))).all().get();
      } catch (java.util.concurrent.ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
      admin.alterClientQuotas(List.of(new ClientQuotaAlteration(EVERY_CLIENT, List.of(new ClientQuotaAlteration.Op(RATE, (double) bytesPerSecond)))))
          .all().get();
      ProduceQuota q = new ProduceQuota(admin);
      Properties pp = new Properties();
      pp.put("bootstrap.servers", bootstrap);
      pp.put("client.id", "quota-probe-" + System.nanoTime());
      pp.put("acks", "1");
      try (KafkaProducer<byte[], byte[]> probe = new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        byte[] value = new byte[64 * 1024];
        while (throttleMax(probe) <= 0) {
          if (System.nanoTime() > deadline) {
            q.close();
            throw new AssertionError("the broker did not throttle a producer within 30 s of a " + RATE + " quota of " + bytesPerSecond);
          }
          probe.send(new ProducerRecord<>(probeTopic, value)).get();
        }
      }
      return q;
    } catch (Exception | Error e) {
      admin.close();
      throw e;
    }
  }

  private static double throttleMax(KafkaProducer<?, ?> producer) {
    for (Map.Entry<MetricName, ? extends Metric> m : producer.metrics().entrySet()) {
      if (m.getKey().name().equals("produce-throttle-time-max") && m.getKey().group().equals("producer-metrics")) {
        Object v = m.getValue().metricValue();
        return v instanceof Double && !((Double) v).isNaN() ? (Double) v : 0;
      }
    }
    return 0;
  }

  /** Removes the quota. */
  @Override
  public void close() {
    try {
      admin.alterClientQuotas(List.of(new ClientQuotaAlteration(EVERY_CLIENT, List.of(new ClientQuotaAlteration.Op(RATE, null))))).all().get();
    } catch (Exception e) {
      throw new IllegalStateException("could not remove the produce quota: later tests on this broker would be throttled", e);
    } finally {
      admin.close();
    }
  }
}
