package dev.updraft.load.traffic;

import java.util.ArrayList;
import java.util.List;

/**
 * A traffic profile: named phases, each a piecewise-linear arrival rate over time (as k6's
 * {@code ramping-arrival-rate}), plus an optional instant at which the push trigger fires. Immutable and
 * thread-safe.
 *
 * <p>Times are seconds from the start of the run; rates are requests per second. Within a phase, the
 * rate starts at {@code startRate} and moves linearly to each stage's {@code target} over the stage's
 * duration. A phase contributes no traffic outside {@code [startS, endS)}.
 *
 * @param triggerAtS seconds from the start at which the push trigger fires; negative for none
 */
public record Profile(String name, String description, List<Profile.Phase> phases, double triggerAtS) {

  public Profile {
    phases = List.copyOf(phases);
    if (phases.isEmpty()) {
      throw new IllegalArgumentException("a profile needs at least one phase: profile=" + name);
    }
  }

  /** One linear segment: the rate moves to {@code target} over {@code durationS}. */
  public record Stage(double durationS, double target) {
    public Stage {
      if (!(durationS > 0) || target < 0 || Double.isNaN(target)) {
        throw new IllegalArgumentException("bad stage: durationS=" + durationS + " target=" + target);
      }
    }
  }

  /**
   * A phase of the profile.
   *
   * @param outdatedShare the share (0..1) of requests sent by a device that does not run the newest
   *     update (a storm opener is always outdated: 1.0)
   * @param assets whether a device that receives a manifest in this phase downloads its launch asset
   * @param meaning what the traffic stands for, copied into the summary
   */
  public record Phase(
      String name,
      double startS,
      double startRate,
      List<Stage> stages,
      double outdatedShare,
      boolean assets,
      String meaning) {

    public Phase {
      stages = List.copyOf(stages);
      if (stages.isEmpty() || startS < 0 || startRate < 0 || outdatedShare < 0 || outdatedShare > 1) {
        throw new IllegalArgumentException(
            "bad phase: name=" + name + " startS=" + startS + " startRate=" + startRate + " stages=" + stages.size()
                + " outdatedShare=" + outdatedShare);
      }
    }

    public double durationS() {
      double d = 0;
      for (Stage s : stages) {
        d += s.durationS();
      }
      return d;
    }

    public double endS() {
      return startS + durationS();
    }

    /** Rate at the start of stage {@code i}. */
    double stageStartRate(int i) {
      return i == 0 ? startRate : stages.get(i - 1).target();
    }

    /** Offset of stage {@code i} from the start of the run. */
    double stageStartS(int i) {
      double t = startS;
      for (int k = 0; k < i; k++) {
        t += stages.get(k).durationS();
      }
      return t;
    }

    /** The stage index active at run time {@code t}, or -1 outside the phase. */
    int stageAt(double t) {
      if (t < startS) {
        return -1;
      }
      double s = startS;
      for (int i = 0; i < stages.size(); i++) {
        double e = s + stages.get(i).durationS();
        if (t < e) {
          return i;
        }
        s = e;
      }
      return -1;
    }

    /** The target rate at run time {@code t} (0 outside the phase). */
    double rateAt(double t) {
      int i = stageAt(t);
      if (i < 0) {
        return 0;
      }
      Stage st = stages.get(i);
      double r0 = stageStartRate(i);
      double f = (t - stageStartS(i)) / st.durationS();
      return r0 + (st.target() - r0) * f;
    }

    /** Expected number of arrivals from the start of the phase until run time {@code t}. */
    public double countUntil(double t) {
      if (t <= startS) {
        return 0;
      }
      double n = 0;
      double s = startS;
      for (int i = 0; i < stages.size(); i++) {
        Stage st = stages.get(i);
        double r0 = stageStartRate(i);
        double d = st.durationS();
        double slope = (st.target() - r0) / d;
        double x = Math.min(t - s, d);
        n += r0 * x + slope * x * x / 2;
        if (t - s <= d) {
          return n;
        }
        s += d;
      }
      return n;
    }

    /** Expected number of arrivals in the whole phase. */
    public double totalCount() {
      return countUntil(endS());
    }

    /**
     * The run time at which {@link #countUntil} reaches {@code n}: the inverse of the cumulative count,
     * solving the quadratic of a linear-rate segment in its numerically stable form. NaN past the end.
     */
    double timeOfCount(double n) {
      if (n <= 0) {
        return startS;
      }
      double acc = 0;
      double s = startS;
      for (int i = 0; i < stages.size(); i++) {
        Stage st = stages.get(i);
        double r0 = stageStartRate(i);
        double d = st.durationS();
        double slope = (st.target() - r0) / d;
        double seg = r0 * d + slope * d * d / 2;
        if (n <= acc + seg + 1e-9) {
          double m = Math.min(n - acc, seg);
          double disc = Math.max(0, r0 * r0 + 2 * slope * m);
          double denom = r0 + Math.sqrt(disc);
          double x = denom > 0 ? 2 * m / denom : 0;
          return s + Math.min(x, d);
        }
        acc += seg;
        s += d;
      }
      return Double.NaN;
    }

    public Phase scaled(double rateFactor, double timeFactor, double shiftS) {
      List<Stage> st = new ArrayList<>();
      for (Stage s : stages) {
        st.add(new Stage(s.durationS() * timeFactor, s.target() * rateFactor));
      }
      return new Phase(name, startS * timeFactor + shiftS, startRate * rateFactor, st, outdatedShare, assets, meaning);
    }

    public Phase withAssets(boolean a) {
      return new Phase(name, startS, startRate, stages, outdatedShare, a, meaning);
    }

    /** The part of this phase before run time {@code t} (the stage crossing {@code t} ends there); null when none. */
    Phase until(double t) {
      if (startS >= t) {
        return null;
      }
      List<Stage> st = new ArrayList<>();
      double s = startS;
      for (int i = 0; i < stages.size() && s < t; i++) {
        Stage stage = stages.get(i);
        double e = s + stage.durationS();
        st.add(e <= t ? stage : new Stage(t - s, rateAt(t)));
        s = e;
      }
      return new Phase(name, startS, startRate, st, outdatedShare, assets, meaning);
    }
  }

  public double durationS() {
    double d = 0;
    for (Phase p : phases) {
      d = Math.max(d, p.endS());
    }
    return d;
  }

  /** Sum of the phases' target rates at run time {@code t}. */
  double rateAt(double t) {
    double r = 0;
    for (Phase p : phases) {
      r += p.rateAt(t);
    }
    return r;
  }

  /** Rates multiplied by {@code rateFactor}, durations and start times by {@code timeFactor}. */
  public Profile scaled(double rateFactor, double timeFactor) {
    if (!(rateFactor > 0) || !(timeFactor > 0)) {
      throw new IllegalArgumentException("scale factors must be > 0: rate=" + rateFactor + " time=" + timeFactor);
    }
    if (rateFactor == 1 && timeFactor == 1) {
      return this;
    }
    List<Phase> ps = new ArrayList<>();
    for (Phase p : phases) {
      ps.add(p.scaled(rateFactor, timeFactor, 0));
    }
    return new Profile(name, description, ps, triggerAtS < 0 ? triggerAtS : triggerAtS * timeFactor);
  }

  public Profile withAssets(boolean onStormPhases) {
    List<Phase> ps = new ArrayList<>();
    for (Phase p : phases) {
      ps.add(p.withAssets(onStormPhases && p.outdatedShare() >= 1.0));
    }
    return new Profile(name, description, ps, triggerAtS);
  }

  /**
   * The profile's first {@code seconds} (played again from its start when it is shorter), with no push trigger: the
   * traffic of a server pre-run ({@code --server-prerun}).
   */
  public Profile firstSeconds(double seconds) {
    if (!(seconds > 0)) {
      throw new IllegalArgumentException("firstSeconds needs seconds > 0: got " + seconds + " (profile " + name + ")");
    }
    double d = durationS();
    List<Phase> ps = new ArrayList<>();
    for (int k = 0; k * d < seconds; k++) {
      for (Phase p : phases) {
        Phase cut = p.scaled(1, 1, k * d).until(seconds);
        if (cut != null) {
          ps.add(cut);
        }
      }
    }
    return new Profile(name, "the first " + Profiles.fmt(seconds) + " s of " + description, ps, -1);
  }

  public Profile withTriggerAt(double t) {
    return new Profile(name, description, phases, t);
  }

  int phaseIndex(String phaseName) {
    for (int i = 0; i < phases.size(); i++) {
      if (phases.get(i).name().equals(phaseName)) {
        return i;
      }
    }
    return -1;
  }
}
