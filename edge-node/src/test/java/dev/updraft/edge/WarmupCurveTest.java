package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** When the warm-up stops: once its latency curve has stopped falling, not before. */
class WarmupCurveTest {
  /** The JIT's total compilation time the curves under test see, in ms (0: it compiles nothing, quiet). */
  private final long[] compiled = {0};
  /** A clock that moves 10 ms each time it is read (each window is judged once). */
  private final long[] now = {0};

  private WarmupCurve curve(int requests, boolean untilFlat) {
    return new WarmupCurve(requests, untilFlat, () -> now[0] += 10_000_000L, () -> compiled[0], () -> List.of());
  }

  /** Feeds {@code curve} one window per entry of {@code meansMicros}, every request of a window at that latency. */
  private static int feed(WarmupCurve curve, long... meansMicros) {
    int n = 0;
    for (long us : meansMicros) {
      for (int i = 0; i < curve.window(); i++) {
        if (curve.flat()) {
          return n;
        }
        curve.record(n++, us * 1000);
      }
    }
    return n;
  }

  @Test
  void aCurveLikeTheMeasuredOneStopsOnceItIsFlat() {
    WarmupCurve c = curve(20_000, true);
    assertThat(c.window()).isEqualTo(1_000);
    // the 1,000,000-publish image's curve: cold, then falling, then flat around 1.3 ms with noise
    int sent = feed(c, 15_000, 4_000, 3_500, 3_000, 2_600, 2_200, 1_900, 1_600, 1_400, 1_500, 1_300, 1_400, 1_450, 1_350,
        1_300, 1_300, 1_300, 1_300, 1_300, 1_300);
    assertThat(c.flat()).isTrue();
    // 1,400 at 9,000 is the last 10 % gain; 1,500, 1,300 (7 % better) and 1,400 gain less: flat after 12,000
    assertThat(c.flatAfter()).isEqualTo(12_000);
    assertThat(sent).isEqualTo(12_000);
    assertThat(c.means()).isEqualTo("15000 4000 3500 3000 2600 2200 1900 1600 1400 1500 1300 1400");
  }

  @Test
  void aPlateauWhileTheJitStillCompilesDoesNotEndTheWarmUp() {
    WarmupCurve c = new WarmupCurve(20_000, true, () -> now[0] += 10_000_000L, () -> compiled[0] += 3, () -> List.of());
    // the same curve as the measured one, but each window the compilers work 3 ms of its 10: 30 % > 10 %
    int sent = feed(c, 15_000, 4_000, 3_500, 3_000, 2_600, 2_200, 1_900, 1_600, 1_400, 1_500, 1_300, 1_400, 1_450, 1_350,
        1_300, 1_300, 1_300, 1_300, 1_300, 1_300);
    assertThat(c.flat()).isFalse();
    assertThat(sent).isEqualTo(20_000);
    assertThat(c.lastJitPercent()).isEqualTo(30);
  }

  @Test
  void theWarmUpEndsOnceTheJitHasGoneQuietOnAFlatCurve() {
    long[] perWindow = {5};
    WarmupCurve c = new WarmupCurve(20_000, true, () -> now[0] += 10_000_000L, () -> compiled[0] += perWindow[0], () -> List.of());
    // flat from 5,000 on (1,300 µs), the compilers busy (50 %) until the 9th window, then 1 ms of 10 (10 %: not
    // under 10), then none
    for (int w = 0; w < 20 && !c.flat(); w++) {
      perWindow[0] = w < 8 ? 5 : w < 10 ? 1 : 0;
      for (int i = 0; i < c.window(); i++) {
        c.record(w * c.window() + i, (w < 4 ? 4_000 - 500 * w : 1_300) * 1000L);
      }
    }
    assertThat(c.flatAfter()).isEqualTo(11_000);
    assertThat(c.lastJitPercent()).isZero();
  }

  @Test
  void withoutTheJitsFiguresTheLatencyAloneDecides() {
    WarmupCurve c = new WarmupCurve(20_000, true, () -> now[0] += 10_000_000L, () -> -1, () -> null);
    int sent = feed(c, 15_000, 4_000, 3_500, 3_000, 2_600, 2_200, 1_900, 1_600, 1_400, 1_500, 1_300, 1_400);
    assertThat(c.flatAfter()).isEqualTo(12_000);
    assertThat(sent).isEqualTo(12_000);
    assertThat(c.lastJitPercent()).isEqualTo(-1);
  }

  @Test
  void aCurveThatKeepsFallingByMoreThanTenPercentRunsToTheEnd() {
    WarmupCurve c = curve(20_000, true);
    long[] means = new long[20];
    long us = 20_000;
    for (int i = 0; i < means.length; i++) {
      means[i] = us;
      us = us * 85 / 100;
    }
    assertThat(feed(c, means)).isEqualTo(20_000);
    assertThat(c.flat()).isFalse();
  }

  @Test
  void aFlatStartDoesNotEndTheWarmUpBeforeAQuarterOfItsRequests() {
    WarmupCurve c = curve(20_000, true);
    // flat from the first window: three windows without a gain after 4,000 requests, but the minimum is 5,000
    int sent = feed(c, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000);
    assertThat(c.flatAfter()).isEqualTo(5_000);
    assertThat(sent).isEqualTo(5_000);
  }

  @Test
  void offItNeverStopsEarly() {
    WarmupCurve c = curve(20_000, false);
    assertThat(feed(c, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000,
        1_000, 1_000, 1_000, 1_000, 1_000, 1_000)).isEqualTo(20_000);
    assertThat(c.flat()).isFalse();
  }

  @Test
  void windowsAreJudgedInOrderOnlyOnceEveryRequestOfThemAnswered() {
    WarmupCurve c = curve(2_000, true);
    assertThat(c.window()).isEqualTo(100);
    // windows 1 to 9 answer (flat at 1 ms) while request 0 of window 0 is still in flight: nothing is judged
    for (int n = 1; n < 1_000; n++) {
      c.record(n, 1_000_000);
    }
    assertThat(c.flat()).isFalse();
    // its answer comes: window 0 sets the best, 1 to 3 gain nothing: flat once judged (500 is the minimum)
    c.record(0, 1_000_000);
    assertThat(c.flatAfter()).isEqualTo(500);
    assertThat(c.means()).startsWith("1000 1000 1000");
  }

  @Test
  void smallWarmUpsUseWindowsOfFifty() {
    assertThat(curve(300, true).window()).isEqualTo(WarmupCurve.MIN_WINDOW);
    assertThatThrownBy(() -> curve(0, true)).hasMessageContaining("got 0");
  }

  @Test
  void reachingTheEndIsNotReportedAsFlat() {
    // 200 requests in windows of 50: the third window without a gain is the last one, so nothing was cut short
    WarmupCurve c = curve(200, true);
    assertThat(feed(c, 1_000, 1_000, 1_000, 1_000)).isEqualTo(200);
    assertThat(c.flat()).isFalse();
  }

  @Test
  void aFlatQuietCurveWaitsForTheHotPathsTopTierCode() {
    // the C1 plateau of cold-start run 9: flat (three windows without a gain) and quiet from 6,000 requests;
    // the route's C2 code is not there when the windows ending at 6,000 and 7,000 are judged, and is at 8,000
    List<String> notYet = List.of("dev.updraft.edge.ManifestHandler.answer");
    int[] asked = {0};
    WarmupCurve c = new WarmupCurve(20_000, true, () -> now[0] += 10_000_000L, () -> compiled[0],
        () -> ++asked[0] < 3 ? notYet : List.of());
    int sent = feed(c, 4_000, 2_000, 1_300, 1_300, 1_300, 1_300, 1_300, 1_300, 1_300, 1_300, 1_300, 1_300);
    assertThat(c.flatAfter()).as("ends once the top-tier code is there, not on the plateau at 6,000").isEqualTo(8_000);
    assertThat(sent).isEqualTo(8_000);
    assertThat(c.lastPending()).isEmpty();
  }

  @Test
  void aHotPathNeverCompiledRunsTheWarmUpToItsEnd() {
    WarmupCurve c = new WarmupCurve(20_000, true, () -> now[0] += 10_000_000L, () -> compiled[0],
        () -> List.of("io.netty.handler.codec.http.HttpObjectDecoder.decode"));
    long[] flat = new long[20];
    java.util.Arrays.fill(flat, 1_300);
    assertThat(feed(c, flat)).isEqualTo(20_000);
    assertThat(c.flat()).isFalse();
    assertThat(c.lastPending()).containsExactly("io.netty.handler.codec.http.HttpObjectDecoder.decode");
  }

  @Test
  void largeWarmUpsJudgeWindowsOfAThousandAndMayEndAfterFiveThousand() {
    WarmupCurve c = curve(200_000, true);
    assertThat(c.window()).isEqualTo(WarmupCurve.MAX_WINDOW);
    int sent = feed(c, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000, 2_000);
    assertThat(c.flatAfter()).isEqualTo(5_000);
    assertThat(sent).isEqualTo(5_000);
  }
}
