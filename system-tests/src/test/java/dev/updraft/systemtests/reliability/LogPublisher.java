package dev.updraft.systemtests.reliability;

import dev.updraft.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A publisher's CI during a fault: a thread that publishes fixture updates 1 and 2 in turn through the
 * real CLI (and so the real API) every {@link #PAUSE_MS}, each with an idempotency key of its own. A
 * publish the CLI could not get acknowledged (it retries 503s itself) is tried again with the same key, up
 * to {@link #ATTEMPTS} times, as CI would re-run the step. Remembers the group the API answered for each
 * key. Stops at {@link #close()}.
 */
final class LogPublisher implements AutoCloseable {
  static final String KEY_PREFIX = "fault-publish-";
  static final long PAUSE_MS = 250;
  static final int ATTEMPTS = 6;

  private final String server;
  private final String app;
  private final Thread thread;
  private final Map<String, String> groups = new TreeMap<>();
  private final List<String> unacknowledged = new ArrayList<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong slowestMs = new AtomicLong();
  private volatile boolean running = true;

  LogPublisher(String server, String app) {
    this.server = server;
    this.app = app;
    thread = new Thread(this::run, "fault-publisher");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    for (int n = 1; running; n++) {
      String key = KEY_PREFIX + n;
      String group = null;
      for (int attempt = 1; attempt <= ATTEMPTS && group == null; attempt++) {
        if (attempt > 1) {
          retried.incrementAndGet();
        }
        long t0 = System.nanoTime();
        CliRun r = CliRun.run(server, Services.ADMIN, "publish", "--app", app, "--branch", "main", "--runtime-version", "1.0.0",
            "--dist", (n % 2 == 1 ? Fixtures.update1() : Fixtures.update2()).toString(), "--no-progress",
            "--idempotency-key", key, "--message", "publish " + n, "--json");
        slowestMs.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0), Math::max);
        if (r.status() == 0) {
          group = r.json().path("groupId").asText();
        }
      }
      synchronized (this) {
        if (group != null) {
          groups.put(key, group);
          acknowledged.incrementAndGet();
        } else {
          unacknowledged.add(key);
        }
      }
      pause(PAUSE_MS);
    }
  }

  private void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  long acknowledged() {
    return acknowledged.get();
  }

  /** CLI runs repeated with the same key after the CLI itself gave up. */
  long retried() {
    return retried.get();
  }

  long slowestMs() {
    return slowestMs.get();
  }

  synchronized Map<String, String> groupsByKey() {
    return new TreeMap<>(groups);
  }

  synchronized List<String> unacknowledged() {
    return new ArrayList<>(unacknowledged);
  }

  /** Lets the publish under way finish (bounded), then stops. */
  @Override
  public void close() {
    running = false;
    try {
      thread.join(TimeUnit.MINUTES.toMillis(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
