package dev.updraft.load;

import java.util.ArrayList;
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
final class Stats {
  /** One stage of one phase. */
  record Window(int index, int phase, int stage, String phaseName, double startS, double endS, double rateFrom, double rateTo) {
    boolean hold() {
      return rateFrom == rateTo && endS - startS >= 1;
    }
  }

  static final long HIGHEST_US = 120_000_000L;
  static final int DIGITS = 3;

  static final int SENT = 0;
  static final int RESPONSES = 1;
  static final int OK = 2;
  static final int DROP_LATE = 3;
  static final int DROP_INFLIGHT = 4;
  static final int STALE = 5;
  static final int ASSETS = 6;
  static final int MANIFESTS = 7;
  static final int NO_UPDATES = 8;
  static final int FRESH_INSTALLS = 9;
  static final int ERR = 10;
  static final int SLOTS = ERR + ErrorKind.ALL.length;

  final Profile profile;
  final List<Window> windows;
  final int lanes;
  private final AtomicLongArray counters;
  final SingleWriterRecorder[][] latency;
  final SingleWriterRecorder[][] service;
  final SingleWriterRecorder[][] asset;

  Stats(Profile profile, int lanes) {
    this.profile = profile;
    this.lanes = lanes;
    List<Window> ws = new ArrayList<>();
    for (int p = 0; p < profile.phases().size(); p++) {
      Profile.Phase ph = profile.phases().get(p);
      for (int s = 0; s < ph.stages().size(); s++) {
        double from = ph.stageStartS(s);
        ws.add(new Window(ws.size(), p, s, ph.name(), from, from + ph.stages().get(s).durationS(),
            ph.stageStartRate(s), ph.stages().get(s).target()));
      }
    }
    this.windows = List.copyOf(ws);
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

  static Histogram newHistogram() {
    return new Histogram(HIGHEST_US, DIGITS);
  }

  /** The window of a phase's stage at run time {@code t}, or -1. */
  int windowOf(int phase, double t) {
    int s = profile.phases().get(phase).stageAt(t);
    if (s < 0) {
      // the very end of a phase belongs to its last stage
      Profile.Phase ph = profile.phases().get(phase);
      if (Math.abs(t - ph.endS()) < 1e-6) {
        s = ph.stages().size() - 1;
      } else {
        return -1;
      }
    }
    for (Window w : windows) {
      if (w.phase() == phase && w.stage() == s) {
        return w.index();
      }
    }
    return -1;
  }

  void add(int window, int slot) {
    counters.incrementAndGet(window * SLOTS + slot);
  }

  void error(int window, ErrorKind k) {
    counters.incrementAndGet(window * SLOTS + ERR + k.ordinal());
  }

  long get(int window, int slot) {
    return counters.get(window * SLOTS + slot);
  }

  long errors(int window) {
    long n = 0;
    for (int i = 0; i < ErrorKind.ALL.length; i++) {
      n += counters.get(window * SLOTS + ERR + i);
    }
    return n;
  }

  /** The sum of a slot over the windows of one phase (-1 for all phases). */
  long phaseSum(int phase, int slot) {
    long n = 0;
    for (Window w : windows) {
      if (phase < 0 || w.phase() == phase) {
        n += get(w.index(), slot);
      }
    }
    return n;
  }

  long phaseErrors(int phase) {
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
