package dev.updraft.load.run;

import dev.updraft.common.ConfigException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The servers under test: a round-robin split over one or more base URLs. A target that fails at the
 * transport level or answers 5xx is marked down and skipped while another is up (devices behind a load
 * balancer reach the survivor); it is up again when it answers 200 (a request or the health probe). With several targets
 * the health path of the up ones is probed every second too, as a load balancer's readiness check: one that answers
 * anything but 200 (an edge still warming up, or draining) leaves the rotation without a failed request, and only its
 * probe brings it back: the requests it still answers 200 (in flight when it was taken out, as an edge draining
 * after SIGTERM answers them) do not.
 * Each down period is recorded as an outage with its failed requests. Thread-safe.
 */
public final class Targets {
  /** A down period of one target, seconds from the start of the run. */
  public record Outage(double startS, double endS, long failedRequests) {}

  public static final class Target {
    final int index;
    final String base;
    final String host;
    final int port;
    final boolean ssl;
    final AtomicLong sent = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    volatile boolean down;
    /** Down because its readiness probe did not answer 200: only a probe's 200 ({@link Targets#ready}) brings it back. */
    volatile boolean outByProbe;
    volatile long downSinceNanos;
    /** When the last outage ended ({@link Long#MIN_VALUE}: never): a probe sent before that is stale. */
    volatile long upSinceNanos = Long.MIN_VALUE;
    final AtomicLong failedWhileDown = new AtomicLong();
    final List<Outage> outages = new ArrayList<>();

    /** The base URL, without a trailing slash. */
    public String base() {
      return base;
    }

    public long sent() {
      return sent.get();
    }

    public long errors() {
      return errors.get();
    }

    /** Its down periods, in order (the last one open-ended when it was still down at the end). */
    public synchronized List<Outage> outages() {
      return List.copyOf(outages);
    }

    Target(int index, String base) {
      this.index = index;
      this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
      URI u;
      try {
        u = URI.create(this.base);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--target must be a URL like http://127.0.0.1:3000: got '" + base + "'");
      }
      if (u.getHost() == null || !("http".equals(u.getScheme()) || "https".equals(u.getScheme()))) {
        throw new ConfigException("--target must be a URL like http://127.0.0.1:3000: got '" + base + "'");
      }
      this.host = u.getHost();
      this.ssl = "https".equals(u.getScheme());
      this.port = u.getPort() > 0 ? u.getPort() : ssl ? 443 : 80;
    }
  }

  final List<Target> all;
  private final AtomicInteger rr = new AtomicInteger();
  private final long startNanos;

  Targets(List<String> bases, long startNanos) {
    if (bases.isEmpty()) {
      throw new ConfigException("--target is required (a base URL such as http://127.0.0.1:3000; several separated by commas)");
    }
    List<Target> ts = new ArrayList<>();
    for (String b : bases) {
      ts.add(new Target(ts.size(), b.trim()));
    }
    this.all = List.copyOf(ts);
    this.startNanos = startNanos;
  }

  /** The next target in round-robin order, skipping down targets while any is up. */
  Target pick() {
    int n = all.size();
    if (n == 1) {
      return all.get(0);
    }
    int start = Math.floorMod(rr.getAndIncrement(), n);
    for (int i = 0; i < n; i++) {
      Target t = all.get((start + i) % n);
      if (!t.down) {
        return t;
      }
    }
    return all.get(start);
  }

  void failed(Target t, long nowNanos) {
    t.errors.incrementAndGet();
    synchronized (t) {
      if (!t.down) {
        t.down = true;
        t.outByProbe = false;
        t.downSinceNanos = nowNanos;
        t.failedWhileDown.set(0);
      }
    }
    t.failedWhileDown.incrementAndGet();
  }

  /**
   * The target's readiness probe, sent at {@code probeSentNanos}, did not answer 200: out of the rotation, no request
   * counted as failed. A probe answer older than the end of the target's last outage is stale (a request answered 200
   * while the probe was in flight) and ignored.
   */
  void notReady(Target t, long probeSentNanos, long nowNanos) {
    synchronized (t) {
      boolean stale = t.upSinceNanos != Long.MIN_VALUE && t.upSinceNanos - probeSentNanos > 0;
      if (stale) {
        return;
      }
      if (!t.down) {
        t.down = true;
        t.downSinceNanos = nowNanos;
        t.failedWhileDown.set(0);
      }
      t.outByProbe = true;
    }
  }

  void errorOnly(Target t) {
    t.errors.incrementAndGet();
  }

  /** A request to the target answered 200: it is back unless its readiness probe took it out. */
  void answered(Target t, long nowNanos) {
    if (!t.down || t.outByProbe) {
      return;
    }
    up(t, nowNanos, false);
  }

  /** The target's readiness probe answered 200: back in the rotation. */
  void ready(Target t, long nowNanos) {
    if (t.down) {
      up(t, nowNanos, true);
    }
  }

  private void up(Target t, long nowNanos, boolean byProbe) {
    synchronized (t) {
      if (t.down && (byProbe || !t.outByProbe)) {
        t.down = false;
        t.outByProbe = false;
        t.upSinceNanos = nowNanos;
        t.outages.add(new Outage((t.downSinceNanos - startNanos) / 1e9, (nowNanos - startNanos) / 1e9, t.failedWhileDown.get()));
      }
    }
  }

  /** Closes the outages still open at the end of the run. */
  void close(long nowNanos) {
    for (Target t : all) {
      synchronized (t) {
        if (t.down) {
          t.outages.add(new Outage((t.downSinceNanos - startNanos) / 1e9, Double.NaN, t.failedWhileDown.get()));
          t.down = false;
        }
      }
    }
  }

  boolean anyDown() {
    for (Target t : all) {
      if (t.down) {
        return true;
      }
    }
    return false;
  }
}
