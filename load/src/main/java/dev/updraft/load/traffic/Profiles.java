package dev.updraft.load.traffic;

import dev.updraft.common.ConfigException;
import java.util.ArrayList;
import java.util.List;

/**
 * The named traffic profiles. {@code xprem} reproduces the three phases of xprem's published k6 test
 * ({@code test/load/loadtest.js}): the k6 stages are copied literally, including the fleet's start rate
 * of 5 req/s before its first 30 s ramp to 20.
 */
public final class Profiles {
  /** The share of fleet and probe requests sent by a device that does not run the newest update. */
  static final double ROUTINE_OUTDATED_SHARE = 0.05;

  public static final String NAMES = "xprem, xprem-short, smoke, knee, storm, constant";

  private Profiles() {}

  private static Profile.Stage st(double d, double target) {
    return new Profile.Stage(d, target);
  }

  public static Profile xprem() {
    Profile.Phase fleet =
        new Profile.Phase(
            "fleet",
            0,
            5,
            List.of(st(30, 20), st(90, 20), st(30, 115), st(90, 115), st(30, 230), st(90, 230)),
            ROUTINE_OUTDATED_SHARE,
            false,
            "a 1M MAU fleet at peak hour: 20 (typical model), 115 (chatty), 230 req/s (2M MAU chatty)");
    Profile.Phase probe =
        new Profile.Phase(
            "probe",
            360,
            200,
            List.of(st(120, 650), st(90, 650), st(30, 0)),
            ROUTINE_OUTDATED_SHARE,
            false,
            "capacity probe: slow ramp 200 -> 650 req/s to locate the knee");
    Profile.Phase storm =
        new Profile.Phase(
            "push_storm",
            630,
            20,
            List.of(st(30, 1000), st(120, 400), st(120, 100), st(90, 20)),
            1.0,
            false,
            "a new update pushed to the whole fleet: every opener is outdated and downloads the manifest");
    return new Profile(
        "xprem",
        "xprem's phases (fleet 0-6 min, probe 6-10 min, push storm from 10:30); the update is published at 10:25",
        List.of(fleet, probe, storm),
        625);
  }

  public static Profile smoke() {
    Profile.Phase fleet =
        new Profile.Phase("fleet", 0, 20, List.of(st(2, 50), st(4, 50)), ROUTINE_OUTDATED_SHARE, false, "smoke: routine checks");
    Profile.Phase storm =
        new Profile.Phase("push_storm", 7, 50, List.of(st(1, 100), st(3, 20)), 1.0, false, "smoke: a small push storm");
    return new Profile("smoke", "a 11 s smoke run with a small storm; the update is published at 6.5 s", List.of(fleet, storm), 6.5);
  }

  /** Seconds of the knee's opening ramp, from a tenth of its first rate up to it. */
  static final double KNEE_OPENING_RAMP_S = 10;

  /** A stepped ramp: an opening ramp, then each step ramps for {@code rampS} then holds for {@code holdS}. */
  public static Profile knee(double from, double to, double step, double rampS, double holdS) {
    if (!(from > 0) || !(to >= from) || !(step > 0) || !(rampS > 0) || !(holdS > 0)) {
      throw new ConfigException(
          "knee profile needs 0 < from <= to, step > 0: from=" + from + " to=" + to + " step=" + step);
    }
    List<Profile.Stage> stages = new ArrayList<>();
    // an opening ramp from a tenth of the first rate: a generator and a server that start at full rate
    // spend their first seconds in interpreted code and drop requests the first hold would be judged by
    stages.add(st(KNEE_OPENING_RAMP_S, from));
    stages.add(st(holdS, from));
    for (double r = from + step; r <= to + 1e-9; r += step) {
      stages.add(st(rampS, r));
      stages.add(st(holdS, r));
    }
    Profile.Phase p =
        new Profile.Phase("knee", 0, from / 10, stages, ROUTINE_OUTDATED_SHARE, false, "stepped ramp to find the saturation knee");
    return new Profile(
        "knee", "stepped ramp " + fmt(from) + " -> " + fmt(to) + " req/s in steps of " + fmt(step) + " (" + fmt(holdS) + " s holds, after a "
            + fmt(KNEE_OPENING_RAMP_S) + " s opening ramp)",
        List.of(p), -1);
  }

  public static Profile storm() {
    Profile.Phase storm =
        new Profile.Phase(
            "push_storm", 5, 20, List.of(st(30, 1000), st(120, 400), st(120, 100), st(90, 20)), 1.0, false,
            "xprem's push storm alone");
    return new Profile("storm", "xprem's push storm alone, the update published at 2 s", List.of(storm), 2);
  }

  public static Profile constant(double rate, double durationS) {
    if (!(rate > 0) || !(durationS > 0)) {
      throw new ConfigException("constant profile needs --rate > 0 and --duration > 0: rate=" + rate + " duration=" + durationS);
    }
    Profile.Phase p =
        new Profile.Phase("constant", 0, rate, List.of(st(durationS, rate)), ROUTINE_OUTDATED_SHARE, false, "constant rate");
    return new Profile("constant", "constant " + fmt(rate) + " req/s for " + fmt(durationS) + " s", List.of(p), -1);
  }

  public static String fmt(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
