package dev.updraft.load.run;

import dev.updraft.load.check.ErrorKind;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What a finished run measured, as the summary and the report read it. {@link LoadRun} is one; nothing
 * here changes the run.
 */
public interface RunResult {
  RunConfig config();

  /** {@code target} or {@code baseline}. */
  String label();

  Stats stats();

  Timeseries timeseries();

  /** The latency of one phase's requests (its windows merged; -1: every phase), microseconds. */
  Histogram phaseHistogram(int phase);

  Histogram windowHistogram(int window);

  /** From the actual send to the end of the body (no queueing before the send). */
  Histogram serviceHistogram(int phase);

  /** The launch asset downloads of a phase. */
  Histogram assetHistogram(int phase);

  /** The first few error messages of each kind. */
  Map<ErrorKind, List<String>> errorSamples();

  /** Each metrics source that could not be scraped, with its first failure. */
  Map<String, String> scrapeErrors();

  /**
   * Per scraped metrics source, per phase name and {@code all}: the server's own latency histogram of the requests it
   * served during the run (empty when the source exposes none).
   */
  Map<String, Map<String, ServerHistogram>> serverLatency();

  double wallSeconds();

  double generatorCpuSeconds();

  long peakInFlight();

  List<Targets.Target> targets();

  /** Seconds from the start at which the push trigger fired; NaN when it did not. */
  double triggerFiredAtS();

  /** Nullable: the push trigger's call. */
  Trigger.Result triggerResult();

  /** Per key ({@code platform/runtime/channel}), the seconds from the trigger until its new update showed. */
  Map<String, Double> visibleAfterS();

  /** How often a newer expected update was learned from the answers. */
  long learnedSwitches();

  /** What discovery learned, one entry per key. */
  List<Discovered> discovered();

  /** Wall-clock time of t = 0. */
  long startEpochMillis();

  /** Whether Vert.x ran on the epoll transport. */
  boolean nativeTransport();
}
