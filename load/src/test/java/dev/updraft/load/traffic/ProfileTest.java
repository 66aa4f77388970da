package dev.updraft.load.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schedule math: the documented rate at each instant and the arrival times it produces. */
class ProfileTest {

  @Test
  void xpremProfileHasTheDocumentedRateAtEachInstant() {
    Profile p = Profiles.xprem();
    // fleet: 5 -> 20 in 30 s, hold 90 s, -> 115 in 30 s, hold 90 s, -> 230 in 30 s, hold 90 s
    assertThat(p.rateAt(0)).isCloseTo(5, within(1e-9));
    assertThat(p.rateAt(15)).isCloseTo(12.5, within(1e-9));
    assertThat(p.rateAt(30)).isCloseTo(20, within(1e-9));
    assertThat(p.rateAt(100)).isCloseTo(20, within(1e-9));
    assertThat(p.rateAt(135)).isCloseTo(67.5, within(1e-9));
    assertThat(p.rateAt(200)).isCloseTo(115, within(1e-9));
    assertThat(p.rateAt(255)).isCloseTo(172.5, within(1e-9));
    assertThat(p.rateAt(359)).isCloseTo(230, within(1e-9));
    // probe from 6:00: 200 -> 650 over 2 min, hold 90 s, -> 0 in 30 s
    assertThat(p.rateAt(360)).isCloseTo(200, within(1e-9));
    assertThat(p.rateAt(420)).isCloseTo(425, within(1e-9));
    assertThat(p.rateAt(500)).isCloseTo(650, within(1e-9));
    assertThat(p.rateAt(585)).isCloseTo(325, within(1e-9));
    // the quiet gap 10:00 - 10:30, the update published at 10:25
    assertThat(p.rateAt(615)).isZero();
    assertThat(p.triggerAtS()).isEqualTo(625);
    // storm from 10:30: 20 -> 1000 in 30 s, -> 400 in 2 min, -> 100 in 2 min, -> 20 in 90 s
    assertThat(p.rateAt(630)).isCloseTo(20, within(1e-9));
    assertThat(p.rateAt(645)).isCloseTo(510, within(1e-9));
    assertThat(p.rateAt(660)).isCloseTo(1000, within(1e-9));
    assertThat(p.rateAt(720)).isCloseTo(700, within(1e-9));
    assertThat(p.rateAt(840)).isCloseTo(250, within(1e-9));
    assertThat(p.rateAt(945)).isCloseTo(60, within(1e-9));
    assertThat(p.durationS()).isEqualTo(990);
    assertThat(p.rateAt(990)).isZero();
    assertThat(p.phases().get(2).outdatedShare()).isEqualTo(1.0);
  }

  @Test
  void cumulativeCountIsTheAreaUnderTheRate() {
    Profile.Phase fleet = Profiles.xprem().phases().get(0);
    // 30*(5+20)/2 + 90*20 + 30*(20+115)/2 + 90*115 + 30*(115+230)/2 + 90*230
    assertThat(fleet.totalCount()).isCloseTo(375 + 1800 + 2025 + 10350 + 5175 + 20700, within(1e-6));
    Profile.Phase storm = Profiles.xprem().phases().get(2);
    // 30*(20+1000)/2 + 120*(1000+400)/2 + 120*(400+100)/2 + 90*(100+20)/2
    assertThat(storm.totalCount()).isCloseTo(15300 + 84000 + 30000 + 5400, within(1e-6));
    assertThat(fleet.countUntil(15)).isCloseTo(5 * 15 + 0.5 * 0.5 * 15 * 15, within(1e-9));
  }

  @Test
  void constantRateArrivalsAreEvenlySpaced() {
    Profile p = Profiles.constant(10, 1);
    List<Double> times = arrivals(p);
    assertThat(times).hasSize(10);
    for (int k = 1; k <= 10; k++) {
      assertThat(times.get(k - 1)).isCloseTo(k / 10.0, within(1e-9));
    }
  }

  @Test
  void rampArrivalsInvertTheQuadraticCount() {
    // 0 -> 10 req/s over 1 s: N(t) = 5 t^2, so the k-th arrival is at sqrt(k / 5)
    Profile.Phase ramp = new Profile.Phase("ramp", 0, 0, List.of(new Profile.Stage(1, 10)), 0, false, "");
    Profile p = new Profile("ramp", "", List.of(ramp), -1);
    List<Double> times = arrivals(p);
    assertThat(times).hasSize(5);
    for (int k = 1; k <= 5; k++) {
      assertThat(times.get(k - 1)).isCloseTo(Math.sqrt(k / 5.0), within(1e-9));
    }
    // a falling ramp 10 -> 0 over 1 s: N(t) = 10 t - 5 t^2; the 5th arrival at the end
    Profile.Phase down = new Profile.Phase("down", 0, 10, List.of(new Profile.Stage(1, 0)), 0, false, "");
    List<Double> d = arrivals(new Profile("down", "", List.of(down), -1));
    assertThat(d).hasSize(5);
    assertThat(d.get(0)).isCloseTo(1 - Math.sqrt(1 - 0.2), within(1e-9));
    assertThat(d.get(4)).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void phasesAreMergedInTimeOrder() {
    Profile.Phase a = new Profile.Phase("a", 0, 2, List.of(new Profile.Stage(1, 2)), 0, false, "");
    Profile.Phase b = new Profile.Phase("b", 0.25, 4, List.of(new Profile.Stage(0.5, 4)), 0, false, "");
    Profile p = new Profile("two", "", List.of(a, b), -1);
    Windows windows = new Windows(p);
    Arrivals arr = new Arrivals(p, windows, false, 1);
    List<String> seq = new ArrayList<>();
    Arrival x;
    while ((x = arr.next()) != null) {
      seq.add(p.phases().get(x.phase()).name() + "@" + x.intendedNanos() / 1_000_000);
    }
    // a: 0.5, 1.0; b: 0.5, 0.75 (start 0.25 + k/4); a tie goes to the earlier phase
    assertThat(seq).containsExactly("a@500", "b@500", "b@750", "a@1000");
  }

  @Test
  void poissonArrivalsKeepTheMeanRate() {
    Profile p = Profiles.constant(1000, 10);
    Windows windows = new Windows(p);
    Arrivals arr = new Arrivals(p, windows, true, 7);
    int n = 0;
    long last = -1;
    Arrival x;
    while ((x = arr.next()) != null) {
      assertThat(x.intendedNanos()).isGreaterThanOrEqualTo(last);
      last = x.intendedNanos();
      n++;
    }
    // 10,000 expected; a Poisson count has standard deviation 100
    assertThat(n).isBetween(9500, 10500);
  }

  @Test
  void kneeProfileStepsAndHolds() {
    Profile k = Profiles.knee(1000, 3000, 1000, 5, 20);
    // ramp 100 -> 1000 in 10 s, hold 1000 for 20 s, ramp to 2000 in 5 s, hold 20 s, ramp to 3000 in 5 s, hold 20 s
    assertThat(k.durationS()).isEqualTo(80);
    assertThat(k.rateAt(0)).isEqualTo(100);
    assertThat(k.rateAt(5)).isEqualTo(550);
    assertThat(k.rateAt(20)).isEqualTo(1000);
    assertThat(k.rateAt(32.5)).isEqualTo(1500);
    assertThat(k.rateAt(40)).isEqualTo(2000);
    assertThat(k.rateAt(79)).isEqualTo(3000);
    Windows s = new Windows(k);
    assertThat(s.all()).filteredOn(Windows.Window::hold).extracting(Windows.Window::rateTo).containsExactly(1000.0, 2000.0, 3000.0);
  }

  @Test
  void scaleMultipliesRatesAndTimeScaleDurations() {
    Profile p = Profiles.xprem().scaled(2, 0.1);
    assertThat(p.rateAt(35)).isCloseTo(460, within(1e-9)); // fleet's last hold, at 1/10 of the time
    assertThat(p.durationS()).isCloseTo(99, within(1e-9));
    assertThat(p.triggerAtS()).isCloseTo(62.5, within(1e-9));
    assertThat(p.rateAt(66)).isCloseTo(2000, within(1e-9));
  }

  @Test
  void aPrerunOfAConstantProfileKeepsItsRateForThePrerunsLengthEvenWhenLongerThanTheProfile() {
    Profile p = Profiles.constant(100, 10).firstSeconds(25);
    // 10 s played twice and half of a third time: 100 req/s throughout, 2,500 requests
    assertThat(p.durationS()).isCloseTo(25, within(1e-9));
    assertThat(p.rateAt(5)).isCloseTo(100, within(1e-9));
    assertThat(p.rateAt(15)).isCloseTo(100, within(1e-9));
    assertThat(p.rateAt(24.9)).isCloseTo(100, within(1e-9));
    assertThat(p.rateAt(25)).isZero();
    assertThat(arrivals(p)).hasSize(2500);
  }

  @Test
  void aPrerunOfXpremIsItsFirstSecondsWithoutThePushTrigger() {
    Profile p = Profiles.xprem().firstSeconds(45);
    // the fleet's 5 -> 20 ramp in 30 s (30 * 12.5 = 375 requests), then 15 s of its 20 req/s hold (300); no probe, no storm
    assertThat(p.phases()).extracting(Profile.Phase::name).containsExactly("fleet");
    assertThat(p.durationS()).isCloseTo(45, within(1e-9));
    assertThat(p.phases().get(0).totalCount()).isCloseTo(675, within(1e-6));
    assertThat(p.triggerAtS()).isNegative();
    assertThat(p.description()).startsWith("the first 45 s of ");
  }

  @Test
  void aPrerunEndingInARampEndsAtTheRateOfThatInstant() {
    Profile p = Profiles.knee(1000, 2000, 1000, 5, 20).firstSeconds(5);
    // the knee's opening ramp 100 -> 1000 in 10 s, cut after 5 s at 550 req/s: 5 * (100 + 550) / 2 = 1,625 requests
    // 90 req/s more each second: 505 req/s at 4.5 s, nothing from 5 s on
    assertThat(p.rateAt(4.5)).isCloseTo(505, within(1e-9));
    assertThat(p.rateAt(5)).isZero();
    assertThat(p.durationS()).isCloseTo(5, within(1e-9));
    assertThat(p.phases().get(0).totalCount()).isCloseTo(1625, within(1e-6));
  }

  private static List<Double> arrivals(Profile p) {
    Arrivals a = new Arrivals(p, new Windows(p), false, 1);
    List<Double> t = new ArrayList<>();
    Arrival x;
    while ((x = a.next()) != null) {
      t.add(x.intendedNanos() / 1e9);
    }
    return t;
  }
}
