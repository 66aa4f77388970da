package dev.updraft.ingester.errors;

import dev.updraft.events.ErrorReport;
import dev.updraft.events.ErrorReportCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error reports' consumer loop, on a thread of its own: poll, write the poll's reports in one transaction
 * ({@link ErrorWriter}), then commit the offsets to Kafka. A crash between the two reads the records again, and the
 * writer counts each report id once, so every report is stored exactly once. A failed write seeks back to the poll's
 * first offsets and retries after a backoff (100 ms doubling to 5 s). A record that does not decode is counted
 * ({@code updraft_ingest_error_reports_skipped_total}) and skipped. Not thread-safe except {@link #stop()}.
 */
final class ErrorLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorLoop.class);
  static final long WRITE_TIMEOUT_MS = 60_000;

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final ErrorWriter writer;
  private final Counter stored;
  private final Counter skipped;
  private final CompletableFuture<Void> exited = new CompletableFuture<>();
  private volatile boolean stopping;

  ErrorLoop(String topic, Consumer<byte[], byte[]> consumer, ErrorWriter writer, MeterRegistry meters) {
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.stored = Counter.builder("updraft.ingest.error.reports.stored").description("Error reports read and written (a report read twice counts twice)")
        .register(meters);
    this.skipped = Counter.builder("updraft.ingest.error.reports.skipped").description("Records of updraft.errors that did not decode")
        .register(meters);
  }

  CompletableFuture<Void> exited() {
    return exited;
  }

  void stop() {
    stopping = true;
    consumer.wakeup();
  }

  @Override
  public void run() {
    long backoff = 100;
    try {
      consumer.subscribe(List.of(topic));
      while (!stopping) {
        ConsumerRecords<byte[], byte[]> records;
        try {
          records = consumer.poll(Duration.ofMillis(500));
        } catch (WakeupException e) {
          break;
        }
        if (records.isEmpty()) {
          continue;
        }
        List<ErrorReport> reports = new ArrayList<>(records.count());
        Map<TopicPartition, Long> first = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          first.putIfAbsent(tp, r.offset());
          next.put(tp, new OffsetAndMetadata(r.offset() + 1));
          try {
            reports.add(ErrorReportCodec.decode(r.value()));
          } catch (IOException e) {
            skipped.increment();
            LOG.warn("skipped error report topic={} partition={} offset={}: {}", r.topic(), r.partition(), r.offset(), e.getMessage());
          }
        }
        try {
          writer.write(reports).toCompletionStage().toCompletableFuture().get(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
          consumer.commitSync(next);
          stored.increment(reports.size());
          backoff = 100;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        } catch (Exception e) {
          LOG.warn("error reports not written ({} records), retrying in {} ms: {}", records.count(), backoff, e.toString());
          first.forEach(consumer::seek);
          sleep(backoff);
          backoff = Math.min(5_000, backoff * 2);
        }
      }
    } catch (WakeupException e) {
      // stopping
    } catch (RuntimeException | Error e) {
      LOG.error("the error-report loop stopped", e);
      exited.completeExceptionally(e);
    } finally {
      try {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
      } catch (RuntimeException e) {
        LOG.debug("closing the error-report consumer", e);
      }
      exited.complete(null);
    }
  }

  private void sleep(long ms) {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    while (!stopping && System.nanoTime() < until) {
      try {
        Thread.sleep(Math.min(100, ms));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
