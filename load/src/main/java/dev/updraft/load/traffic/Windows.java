package dev.updraft.load.traffic;

import java.util.ArrayList;
import java.util.List;

/**
 * The windows of a profile: one per stage of each phase, the unit every counter and latency recorder of
 * a run is split by (a request belongs to the window of its intended send time). Immutable.
 */
public final class Windows {
  /** One stage of one phase. */
  public record Window(int index, int phase, int stage, String phaseName, double startS, double endS, double rateFrom, double rateTo) {
    /** A stage at constant rate lasting at least a second: judged for capacity. */
    public boolean hold() {
      return rateFrom == rateTo && endS - startS >= 1;
    }
  }

  private final Profile profile;
  private final List<Window> all;

  public Windows(Profile profile) {
    this.profile = profile;
    List<Window> ws = new ArrayList<>();
    for (int p = 0; p < profile.phases().size(); p++) {
      Profile.Phase ph = profile.phases().get(p);
      for (int s = 0; s < ph.stages().size(); s++) {
        double from = ph.stageStartS(s);
        ws.add(new Window(ws.size(), p, s, ph.name(), from, from + ph.stages().get(s).durationS(),
            ph.stageStartRate(s), ph.stages().get(s).target()));
      }
    }
    this.all = List.copyOf(ws);
  }

  public List<Window> all() {
    return all;
  }

  public int size() {
    return all.size();
  }

  public Window get(int index) {
    return all.get(index);
  }

  /** The window of a phase's stage at run time {@code t}, or -1. */
  public int windowOf(int phase, double t) {
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
    for (Window w : all) {
      if (w.phase() == phase && w.stage() == s) {
        return w.index();
      }
    }
    return -1;
  }
}
