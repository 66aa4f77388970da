package dev.updraft.load.run;

import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.traffic.Profile;
import dev.updraft.load.traffic.Windows;
import dev.updraft.load.traffic.Windows.Window;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Counters and latency recorders of one run, split by window (one stage of one phase, by the request's
 * intended send time) and by lane (each lane's event loop is the single writer of its recorders).
 * Counters are atomic; recorders are HdrHistogram {@link SingleWriterRecorder}s, read by the reporter
 * thread. Latencies are recorded in microseconds, from the intended send time to the end of the body.
 */
public final class Stats {
  static final long HIGHEST_US = 120_000_000L;
  static final int DIGITS = 3;

  public static final int SENT = 0;
  public static final int RESPONSES = 1;
  public static final int OK = 2;
  public static final int DROP_LATE = 3;
  public static final int DROP_INFLIGHT = 4;
  public static final int STALE = 5;
  public static final int ASSETS = 6;
  public static final int MANIFESTS = 7;
  public static final int NO_UPDATES = 8;
  public static final int FRESH_INSTALLS = 9;
  public static final int ERR = 10;
  static final int SLOTS = ERR + ErrorKind.ALL.length;

  final Profile profile;
  final List<Window> windows;
  private final Windows windowsOf;
  final int lanes;
  private final AtomicLongArray counters;
  final SingleWriterRecorder[][] latency;
  final SingleWriterRecorder[][] service;
  final SingleWriterRecorder[][] asset;
  private final java.util.concurrent.atomic.AtomicLong assetBytes = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong patchBytes = new java.util.concurrent.atomic.AtomicLong();
  private final java.util.concurrent.atomic.AtomicLong patches = new java.util.concurrent.atomic.AtomicLong();

  public Stats(Profile profile, int lanes) {
    this.profile = profile;
    this.lanes = lanes;
    this.windowsOf = new Windows(profile);
    this.windows = windowsOf.all();
    counters = new AtomicLongArray(windows.size() * SLOTS);
    latency = new SingleWriterRecorder[lanes][windows.size()];
    service = new SingleWriterRecorder[lanes][profile.phases().size()];
    asset = new SingleWriterRecorder[lanes][profile.phases().size()];
    for (int l = 0; l < lanes; l++) {
      for (int w = 0; w < windows.size(); w++) {
        latency[l][w] = new SingleWriterRecorder(HIGHEST_US, DIGITS);
      }
      for (int p = 0; p < profile.phases().size(); p++) {
        service[l][p] = new SingleWriterRecorder(HIGHEST_US, DIGITS);
        asset[l][p] = new SingleWriterRecorder(HIGHEST_US, DIGITS);
      }
    }
  }

  /** The windows, in order. */
  public List<Window> windows() {
    return windows;
  }

  static Histogram newHistogram() {
    return new Histogram(HIGHEST_US, DIGITS);
  }

  /** The windows this run's counters are split by. */
  Windows windowsOf() {
    return windowsOf;
  }

  /** The window of a phase's stage at run time {@code t}, or -1. */
  public int windowOf(int phase, double t) {
    return windowsOf.windowOf(phase, t);
  }

  /** A launch-asset download of {@code bytes} bytes; {@code patch}: a 226 bundle patch rather than the full bundle. */
  public void assetBytes(long bytes, boolean patch) {
    assetBytes.addAndGet(bytes);
    if (patch) {
      patchBytes.addAndGet(bytes);
      patches.incrementAndGet();
    }
  }

  /** Bytes of every launch-asset download (patches included). */
  public long assetBytes() {
    return assetBytes.get();
  }

  /** Bytes of the downloads answered with a bundle patch. */
  public long patchBytes() {
    return patchBytes.get();
  }

  /** Downloads answered with a bundle patch. */
  public long patches() {
    return patches.get();
  }

  public void add(int window, int slot) {
    counters.incrementAndGet(window * SLOTS + slot);
  }

  public void error(int window, ErrorKind k) {
    counters.incrementAndGet(window * SLOTS + ERR + k.ordinal());
  }

  public long get(int window, int slot) {
    return counters.get(window * SLOTS + slot);
  }

  public long errors(int window) {
    long n = 0;
    for (int i = 0; i < ErrorKind.ALL.length; i++) {
      n += counters.get(window * SLOTS + ERR + i);
    }
    return n;
  }

  /** The sum of a slot over the windows of one phase (-1 for all phases). */
  public long phaseSum(int phase, int slot) {
    long n = 0;
    for (Window w : windows) {
      if (phase < 0 || w.phase() == phase) {
        n += get(w.index(), slot);
      }
    }
    return n;
  }

  public long phaseErrors(int phase) {
    long n = 0;
    for (Window w : windows) {
      if (phase < 0 || w.phase() == phase) {
        n += errors(w.index());
      }
    }
    return n;
  }

  static long clampUs(long nanos) {
    long us = nanos / 1000;
    return us < 0 ? 0 : Math.min(us, HIGHEST_US);
  }
}
