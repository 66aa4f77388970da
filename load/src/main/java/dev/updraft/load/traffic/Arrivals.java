package dev.updraft.load.traffic;

import java.util.SplittableRandom;

/**
 * The arrival times of a profile: for each phase, the k-th arrival happens when the phase's cumulative
 * expected count reaches {@code u_k}, where {@code u_k = k} (uniform arrivals, the default, as k6's
 * arrival-rate executors) or a sum of k exponential variables of mean 1 (Poisson arrivals). Phases are
 * merged in time order. Not thread-safe: the scheduler thread owns it.
 */
public final class Arrivals implements ArrivalSource {
  private final Profile profile;
  private final Windows windows;
  private final boolean poisson;
  private final SplittableRandom rnd;
  private final double[] nextU;
  private final double[] nextT;

  public Arrivals(Profile profile, Windows windows, boolean poisson, long seed) {
    this.profile = profile;
    this.windows = windows;
    this.poisson = poisson;
    this.rnd = new SplittableRandom(seed);
    int n = profile.phases().size();
    nextU = new double[n];
    nextT = new double[n];
    for (int p = 0; p < n; p++) {
      nextU[p] = 0;
      advance(p);
    }
  }

  private void advance(int p) {
    Profile.Phase ph = profile.phases().get(p);
    nextU[p] += poisson ? -Math.log(1 - rnd.nextDouble()) : 1.0;
    nextT[p] = nextU[p] <= ph.totalCount() + 1e-9 ? ph.timeOfCount(nextU[p]) : Double.NaN;
  }

  @Override
  public Arrival next() {
    int best = -1;
    for (int p = 0; p < nextT.length; p++) {
      if (!Double.isNaN(nextT[p]) && (best < 0 || nextT[p] < nextT[best])) {
        best = p;
      }
    }
    if (best < 0) {
      return null;
    }
    double t = nextT[best];
    advance(best);
    int w = windows.windowOf(best, t);
    return new Arrival(Math.round(t * 1e9), best, Math.max(w, 0), null);
  }
}
