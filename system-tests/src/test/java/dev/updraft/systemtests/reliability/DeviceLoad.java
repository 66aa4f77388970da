package dev.updraft.systemtests.reliability;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Devices polling edges while a fault happens: threads that each keep a connection to one edge and
 * send a device request (one of a fixed set of client ids, in turn) every {@code pause}, judging each
 * answer with a check. Counts answers by phase (the test names phases as the fault goes on), answers per
 * client id, and failures (a connection error is a failure unless the test allows them, as while an edge
 * is down). Threads stop at {@link #close()}.
 */
final class DeviceLoad implements AutoCloseable {
  /** Judges an answer: null when it is right, else what is wrong. */
  interface Check extends Function<RawHttp.Response, String> {}

  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;
  private volatile String phase = "before";
  private volatile boolean connectionErrorsAllowed;
  final Map<String, AtomicLong> answeredByPhase = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> byClient = new ConcurrentHashMap<>();
  final Map<Integer, AtomicLong> byStatus = new ConcurrentHashMap<>();
  final AtomicLong answered = new AtomicLong();
  final AtomicLong connectionErrors = new AtomicLong();
  final AtomicLong failures = new AtomicLong();
  final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();

  /**
   * Starts {@code threadsPerEdge} threads per edge port, each with its own {@code devices} client ids.
   *
   * @param ports a supplier of the ports, read at each (re)connect (an edge restarted on another port)
   */
  DeviceLoad(String app, String channel, java.util.function.IntSupplier[] ports, int threadsPerEdge, int devices,
      long pauseMicros, Check check) {
    for (int e = 0; e < ports.length; e++) {
      for (int t = 0; t < threadsPerEdge; t++) {
        List<String> ids = new ArrayList<>();
        for (int d = 0; d < devices; d++) {
          ids.add(UUID.randomUUID().toString());
        }
        java.util.function.IntSupplier port = ports[e];
        Thread th = new Thread(() -> run(app, channel, port, ids, pauseMicros, check), "device-load-" + e + "-" + t);
        th.setDaemon(true);
        threads.add(th);
      }
    }
    threads.forEach(Thread::start);
  }

  void phase(String name) {
    phase = name;
  }

  void allowConnectionErrors(boolean allowed) {
    connectionErrorsAllowed = allowed;
  }

  long answered(String phaseName) {
    AtomicLong n = answeredByPhase.get(phaseName);
    return n == null ? 0 : n.get();
  }

  private void run(String app, String channel, java.util.function.IntSupplier port, List<String> ids, long pauseMicros, Check check) {
    RawHttp c = null;
    int i = 0;
    while (running) {
      String client = ids.get(i++ % ids.size());
      String p = phase;
      try {
        if (c == null) {
          c = new RawHttp(port.getAsInt(), 10_000);
        }
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(app, channel, client));
        if (r == null) {
          throw new IOException("connection closed without an answer");
        }
        answered.incrementAndGet();
        answeredByPhase.computeIfAbsent(p, k -> new AtomicLong()).incrementAndGet();
        byStatus.computeIfAbsent(r.status(), k -> new AtomicLong()).incrementAndGet();
        byClient.computeIfAbsent(client, k -> new AtomicLong()).incrementAndGet();
        String problem = check.apply(r);
        if (problem != null) {
          fail("phase " + p + ": HTTP " + r.status() + ": " + problem);
        }
        if (r.closes()) {
          c.close();
          c = null;
        }
      } catch (IOException e) {
        if (c != null) {
          c.close();
          c = null;
        }
        connectionErrors.incrementAndGet();
        if (!connectionErrorsAllowed) {
          fail("phase " + p + ": " + e);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // an edge that is down: do not spin
      }
      LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(pauseMicros));
    }
    if (c != null) {
      c.close();
    }
  }

  private void fail(String what) {
    failures.incrementAndGet();
    if (examples.size() < 20) {
      examples.add(what);
    }
  }

  @Override
  public void close() {
    running = false;
    for (Thread t : threads) {
      try {
        t.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
