package dev.updraft.ingester.errors;

import dev.updraft.common.KafkaRefusal;
import dev.updraft.common.loop.ErrorBackoff;
import dev.updraft.common.loop.IdleStrategy;
import dev.updraft.common.loop.LoopAgent;
import dev.updraft.common.loop.LoopClock;
import dev.updraft.common.loop.LoopRunner;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
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
 * writer counts each report id once, so every report is stored exactly once. Run by a {@link LoopRunner} (this is
 * its {@link LoopAgent}): a failed write ends the duty cycle, and the runner's one error policy counts and logs it,
 * calls {@link #recover} (seek back to the poll's first offsets) and backs off (100 ms doubling to 5 s). A record
 * that does not decode is counted ({@code updraft_ingest_error_reports_skipped_total}) and skipped. Not thread-safe
 * except {@link #stop()}.
 */
final class ErrorLoop implements Runnable, LoopAgent {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorLoop.class);
  static final long WRITE_TIMEOUT_MS = 60_000;

  private final String topic;
  private final Consumer<byte[], byte[]> consumer;
  private final ErrorWriter writer;
  private final Counter stored;
  private final Counter skipped;
  private final LoopRunner runner;
  /** The first offset of each partition of the poll being written: where a failed write reads again. */
  private final Map<TopicPartition, Long> first = new HashMap<>();

  ErrorLoop(String topic, Consumer<byte[], byte[]> consumer, ErrorWriter writer, MeterRegistry meters) {
    this.topic = topic;
    this.consumer = consumer;
    this.writer = writer;
    this.stored = Counter.builder("updraft.ingest.error.reports.stored").description("Error reports read and written (a report read twice counts twice)")
        .register(meters);
    this.skipped = Counter.builder("updraft.ingest.error.reports.skipped").description("Records of updraft.errors that did not decode")
        .register(meters);
    this.runner = new LoopRunner(this, IdleStrategy.NONE, ErrorBackoff.DEFAULT, LoopClock.SYSTEM); // the poll is the idling
  }

  CompletableFuture<Void> exited() {
    return runner.exited();
  }

  void stop() {
    runner.stop();
  }

  @Override
  public void run() {
    runner.run();
  }

  @Override
  public String name() {
    return "error-report loop topic=" + topic;
  }

  @Override
  public void onStart() {
    consumer.subscribe(List.of(topic));
  }

  @Override
  public int doWork() {
    ConsumerRecords<byte[], byte[]> records;
    try {
      records = consumer.poll(Duration.ofMillis(500));
    } catch (WakeupException e) {
      return 0; // stop() woke the poll up
    }
    if (records.isEmpty()) {
      return 0;
    }
    List<ErrorReport> reports = new ArrayList<>(records.count());
    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
    first.clear();
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
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing " + reports.size() + " error reports of topic " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(reports.size() + " error reports of topic " + topic + " (" + records.count()
          + " records) not written: " + e, e);
    }
    consumer.commitSync(next);
    stored.increment(reports.size());
    first.clear();
    return records.count();
  }

  /** After a failed cycle: the poll's records are read again from their first offsets. */
  @Override
  public void recover(RuntimeException e) {
    first.forEach(consumer::seek);
    first.clear();
  }

  @Override
  public String refusal(RuntimeException e) {
    return KafkaRefusal.of(e);
  }

  @Override
  public void onClose(Throwable crash) {
    try {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(crash == null ? 5 : 1)));
    } catch (RuntimeException e) {
      LOG.debug("closing the error-report consumer", e);
    }
  }

  @Override
  public void wake() {
    consumer.wakeup();
  }
}
