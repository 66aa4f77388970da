package dev.updraft.edge.replay;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.MultiMap;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends a random sample of device requests to a file, one JSON object per line, for traffic replay:
 *
 * <pre>{"t":1764480000123,"path":"/apps/demo/manifest","query":"","headers":{"accept":"multipart/mixed","expo-platform":"ios"}}</pre>
 *
 * <ul>
 *   <li>{@code t}: epoch milliseconds when the edge received the request;
 *   <li>{@code path}: the request path as received; {@code query}: the raw query string, or empty;
 *   <li>{@code headers}: only what resolution reads: {@code accept}, every {@code expo-*} and
 *       {@code eas-client-id}, names lower-cased, in the order received, repeated headers joined with
 *       {@code ", "}. Never {@code authorization} or cookies.
 * </ul>
 *
 * The event loop only draws the sample and copies those headers; the JSON is written by a thread of
 * its own through a bounded queue; when it falls behind, requests are dropped from the recording and
 * counted ({@code updraft_edge_recorded_requests_dropped_total}). Thread-safe.
 */
public final class RequestRecorder {
  private static final Logger LOG = LoggerFactory.getLogger(RequestRecorder.class);
  private static final int CAPACITY = 10_000;
  /** Leaves the file open and unflushed between lines: the writer flushes once per batch. */
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .disable(com.fasterxml.jackson.core.StreamWriteFeature.AUTO_CLOSE_TARGET)
          .disable(com.fasterxml.jackson.core.StreamWriteFeature.FLUSH_PASSED_TO_STREAM)
          .build();

  private final Path file;
  private final double rate;
  private final ArrayBlockingQueue<Sample> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final Thread writer;
  private final Counter recorded;
  private final Counter dropped;
  private final OutputStream out;
  private volatile boolean closed;

  private record Sample(long t, String path, String query, List<String[]> headers) {}

  /**
   * @param rate share of requests recorded, in (0, 1]
   */
  public RequestRecorder(Path file, double rate, MeterRegistry registry) {
    this.file = file;
    this.rate = rate;
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      out = new BufferedOutputStream(
          Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE),
          1 << 16);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open --record-requests file=" + file, e);
    }
    recorded = Counter.builder("updraft.edge.recorded.requests").description("Device requests written to the recording").register(registry);
    dropped = Counter.builder("updraft.edge.recorded.requests.dropped").description("Sampled requests the writer could not keep up with").register(registry);
    writer = new Thread(this::run, "updraft-edge-recorder");
    writer.setDaemon(true);
  }

  public void start() {
    writer.start();
  }

  /** Draws the sample: whether this request should be recorded. */
  public boolean sampled() {
    return rate >= 1.0 || ThreadLocalRandom.current().nextDouble() < rate;
  }

  /** Copies what replay needs from a request and queues it; never waits. */
  public void record(long epochMillis, String path, String query, MultiMap headers) {
    List<String[]> kept = new ArrayList<>(8);
    for (Map.Entry<String, String> h : headers) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (!(name.equals("accept") || name.startsWith("expo-") || name.equals("eas-client-id"))) {
        continue;
      }
      boolean merged = false;
      for (String[] k : kept) {
        if (k[0].equals(name)) {
          k[1] = k[1] + ", " + h.getValue();
          merged = true;
          break;
        }
      }
      if (!merged) {
        kept.add(new String[] {name, h.getValue()});
      }
    }
    if (closed || !queue.offer(new Sample(epochMillis, path, query == null ? "" : query, kept))) {
      dropped.increment();
    }
  }

  private void run() {
    List<Sample> batch = new ArrayList<>();
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.setRootValueSeparator(null);
      while (!closed || !queue.isEmpty()) {
        Sample first = queue.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, 1000);
        for (Sample s : batch) {
          write(g, s);
        }
        g.flush();
        out.flush();
        recorded.increment(batch.size());
        batch.clear();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      LOG.error("writing --record-requests file={} failed; recording stops: {}", file, e.toString());
      closed = true;
    }
  }

  private static void write(JsonGenerator g, Sample s) throws IOException {
    g.writeStartObject();
    g.writeNumberField("t", s.t());
    g.writeStringField("path", s.path());
    g.writeStringField("query", s.query());
    g.writeObjectFieldStart("headers");
    for (String[] h : s.headers()) {
      g.writeStringField(h[0], h[1]);
    }
    g.writeEndObject();
    g.writeEndObject();
    g.writeRaw('\n');
  }

  /** Stops the writer after it has written what is queued (bounded wait) and closes the file. */
  public void close() {
    closed = true;
    try {
      writer.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      out.close();
    } catch (IOException e) {
      LOG.warn("closing --record-requests file={} failed: {}", file, e.toString());
    }
  }
}
