package dev.updraft.edge;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The warm-up's latency curve, and the decision to end the warm-up once it is flat. Requests are numbered in
 * the order they were sent and grouped in windows of {@link #window()} requests (a twentieth of the most the
 * warm-up may send, at least {@value #MIN_WINDOW} and at most {@value #MAX_WINDOW}); a window is judged once
 * all its requests have answered, in order. The curve is flat when {@value #PATIENCE} windows in a row did
 * not lower the best window mean so far by at least {@value #GAIN_PERCENT} %, the JIT compilers spent less
 * than {@value #JIT_PERCENT} % of the last window's time compiling, the hot path's methods have code of the
 * JIT's top tier ({@link HotPath}), and at least a quarter of the requests (at most {@value #MIN_REQUESTS})
 * have been sent: the JIT has compiled what the requests run, and more requests would only add to the start.
 *
 * <p>Why the JIT too: measured on the 1,000,000-publish image (docs/benchmarks/state-scale.md), the curve
 * falls from 18–24 ms over the first thousand requests to a plateau of 4–6 ms (the C1-compiled code) for
 * several windows, then to 2 ms once C2 has compiled the route: the latency alone ended a warm-up on that
 * plateau. Where the JVM does not report compilation time the latency alone decides. Why the hot path too:
 * on the C1 plateau the latency is flat and the compilers idle while the invocation counters climb towards C2
 * (cold-start.md, runs 9 and 10: the warm-up ended there after 6,000 requests, and the route's C2
 * compilations came under the first real traffic). Thread-safe.
 */
final class WarmupCurve {
  static final int MIN_WINDOW = 50;
  static final int MAX_WINDOW = 1_000;
  static final int MIN_REQUESTS = 5_000;
  static final int PATIENCE = 3;
  static final int GAIN_PERCENT = 10;
  static final int JIT_PERCENT = 10;
  private static final int WINDOWS = 20;

  private final int requests;
  private final int window;
  private final int minRequests;
  private final boolean untilFlat;
  private final LongSupplier nanoTime;
  /** Total JIT compilation time so far, in ms; -1 when the JVM does not report it. */
  private final LongSupplier compileMillis;
  /** The hot path's methods not compiled at the top tier yet; null when the JVM cannot tell. */
  private final Supplier<List<String>> pendingHotPath;
  private long lastJudgedNanos;
  private long lastCompileMillis;
  private int lastJitPercent = -1;
  private List<String> lastPending;
  private final long[] nanos;
  private final int[] counts;
  private int judged;
  private long bestMeanNanos = Long.MAX_VALUE;
  private int windowsWithoutGain;
  private volatile int flatAfter = -1;

  /**
   * @param requests the most the warm-up sends ({@code --warmup-requests}, at least 1)
   * @param untilFlat whether {@link #flat()} may end the warm-up before {@code requests}
   * @param nanoTime the clock
   * @param compileMillis the JIT's total compilation time so far in ms, -1 when unknown
   * @param pendingHotPath the hot path's methods not yet compiled at the top tier, null when unknown; asked
   *     once per judged window, on the thread that records: it must answer at once
   */
  WarmupCurve(int requests, boolean untilFlat, LongSupplier nanoTime, LongSupplier compileMillis,
      Supplier<List<String>> pendingHotPath) {
    if (requests < 1) {
      throw new IllegalArgumentException("a warm-up curve needs at least one request: got " + requests);
    }
    this.requests = requests;
    this.window = Math.min(MAX_WINDOW, Math.max(MIN_WINDOW, (requests + WINDOWS - 1) / WINDOWS));
    this.minRequests = Math.min(MIN_REQUESTS, requests / 4);
    this.untilFlat = untilFlat;
    this.nanoTime = nanoTime;
    this.compileMillis = compileMillis;
    this.pendingHotPath = pendingHotPath;
    this.lastJudgedNanos = nanoTime.getAsLong();
    this.lastCompileMillis = compileMillis.getAsLong();
    int n = (requests + window - 1) / window;
    this.nanos = new long[n];
    this.counts = new int[n];
  }

  /** Requests per window. */
  int window() {
    return window;
  }

  /** Records that request number {@code n} (from 0, in the order sent) answered after {@code latencyNanos}. */
  synchronized void record(int n, long latencyNanos) {
    if (n < 0 || n >= requests) {
      return;
    }
    int w = n / window;
    nanos[w] += latencyNanos;
    counts[w]++;
    while (judged < counts.length && counts[judged] == size(judged)) {
      judge(judged++);
    }
  }

  private int size(int w) {
    return Math.min(window, requests - w * window);
  }

  /** The JIT's total compilation time so far in ms, -1 when the JVM does not report it. */
  static long jvmCompileMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
  }

  private void judge(int w) {
    long now = nanoTime.getAsLong();
    long compiled = compileMillis.getAsLong();
    long elapsedMillis = Math.max(1, (now - lastJudgedNanos) / 1_000_000);
    lastJitPercent = compiled < 0 || lastCompileMillis < 0 ? -1 : (int) Math.min(999, 100 * (compiled - lastCompileMillis) / elapsedMillis);
    lastJudgedNanos = now;
    lastCompileMillis = compiled;
    long mean = nanos[w] / counts[w];
    if (bestMeanNanos == Long.MAX_VALUE || mean * 100 <= bestMeanNanos * (100 - GAIN_PERCENT)) {
      windowsWithoutGain = 0;
    } else {
      windowsWithoutGain++;
    }
    bestMeanNanos = Math.min(bestMeanNanos, mean);
    int sent = w * window + size(w);
    boolean jitQuiet = lastJitPercent < JIT_PERCENT; // -1: not reported, the latency alone decides
    if (untilFlat && flatAfter < 0 && windowsWithoutGain >= PATIENCE && jitQuiet && sent >= minRequests && sent < requests
        && hotPathCompiled()) {
      flatAfter = sent;
    }
  }

  private boolean hotPathCompiled() {
    lastPending = pendingHotPath.get();
    return lastPending == null || lastPending.isEmpty();
  }

  /**
   * The hot path's methods that had no top-tier code when the last window was judged against them (empty:
   * all compiled; null: the JVM does not tell, or no window got that far).
   */
  synchronized List<String> lastPending() {
    return lastPending;
  }

  /** Whether the curve is flat (only with {@code untilFlat}): send no more requests. */
  boolean flat() {
    return flatAfter >= 0;
  }

  /** The requests whose answers made the curve flat (-1 when it is not). */
  int flatAfter() {
    return flatAfter;
  }

  /** The share of the last judged window's time the JIT spent compiling, in % (-1: not reported, or none judged). */
  synchronized int lastJitPercent() {
    return lastJitPercent;
  }

  /** The mean latency of each window that has answers, in µs, space-separated. */
  synchronized String means() {
    StringBuilder b = new StringBuilder();
    for (int w = 0; w < counts.length && counts[w] > 0; w++) {
      b.append(w == 0 ? "" : " ").append(nanos[w] / counts[w] / 1000);
    }
    return b.toString();
  }
}
