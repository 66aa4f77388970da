package dev.updraft.load.run;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * A server pre-run ({@code --server-prerun D}): before a measured run, the same traffic for D against the same server,
 * unmeasured. It is a {@link LoadRun} of its own whose results are dropped: nothing of it reaches the summary, no
 * process is sampled and no metrics scraped during it. The server's JIT compilation of the measured run's work, and
 * the caches that work fills, are then done before the measured run starts. The measured run that follows is the same
 * as without a pre-run (its own discovery, generator warm-up and device fleet from the seed).
 */
public final class ServerPrerun {
  private ServerPrerun() {}

  /**
   * Runs the pre-run of {@code measured} against {@code urls} and prints one line of what it sent; nothing when
   * {@code measured} has no pre-run. {@code label}: whose pre-run ({@code target} or {@code baseline}).
   */
  public static void run(RunConfig measured, String label, List<String> urls, PrintStream out)
      throws LoadRun.DiscoveryException, InterruptedException {
    if (measured.serverPrerun().isZero()) {
      return;
    }
    RunConfig c = measured.forPrerun();
    LoadRun pre = new LoadRun(c, label + "-prerun", out);
    pre.sampleProcesses(Map.of());
    pre.execute(urls);
    if (out != null) {
      Stats st = pre.stats();
      out.println("[" + label + "] server pre-run (not measured): " + c.profile().description() + ", sent "
          + st.phaseSum(-1, Stats.SENT) + ", errors " + st.phaseErrors(-1) + ", dropped "
          + (st.phaseSum(-1, Stats.DROP_LATE) + st.phaseSum(-1, Stats.DROP_INFLIGHT)) + " in "
          + Math.round(pre.wallSeconds()) + " s");
    }
  }
}
