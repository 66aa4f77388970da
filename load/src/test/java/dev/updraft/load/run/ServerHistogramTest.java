package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The edge's own latency histogram, read from two scrapes a second apart. */
class ServerHistogramTest {
  /** Prometheus text as Micrometer writes a timer with service-level buckets, two outcomes' worth of label sets. */
  static String scrape(long le1ms, long le5ms, long le10ms, long inf) {
    return String.join("\n",
        "# TYPE updraft_edge_request_seconds histogram",
        "updraft_edge_request_seconds_bucket{le=\"5.0E-4\"} 0",
        "updraft_edge_request_seconds_bucket{le=\"0.001\"} " + le1ms,
        "updraft_edge_request_seconds_bucket{le=\"0.005\"} " + le5ms,
        "updraft_edge_request_seconds_bucket{le=\"0.01\"} " + le10ms,
        "updraft_edge_request_seconds_bucket{le=\"+Inf\"} " + inf,
        "updraft_edge_request_seconds_count " + inf,
        "updraft_edge_request_seconds_sum 1.5",
        "updraft_edge_request_seconds_max 0.2",
        "updraft_edge_requests_total{outcome=\"update\"} 7",
        "");
  }

  @Test
  void theDifferenceOfTwoScrapesIsTheSecondBetweenThem() {
    ServerHistogram before = ServerHistogram.parse(scrape(900, 990, 1000, 1000), ServerHistogram.EDGE_REQUEST_SECONDS);
    // the next second: 1,000 more, 980 under 1 ms, 15 between 1 and 5 ms, 5 between 5 and 10 ms
    ServerHistogram after = ServerHistogram.parse(scrape(1880, 1985, 2000, 2000), ServerHistogram.EDGE_REQUEST_SECONDS);
    ServerHistogram second = after.since(before);

    assertThat(second.count()).isEqualTo(1000);
    assertThat(second.quantileUpperBoundMs(0.5)).isEqualTo(1.0);
    // 995 of 1,000 at or under 5 ms: the 99th percentile is in the 1-5 ms bucket, the 99.9th in the 5-10 ms one
    assertThat(second.quantileUpperBoundMs(0.99)).isEqualTo(5.0);
    assertThat(second.quantileUpperBoundMs(0.999)).isEqualTo(10.0);
    assertThat(second.shareAtOrUnderMs(5)).isCloseTo(0.995, within(1e-9));
  }

  @Test
  void aRestartedServersCountersStartAgainSoItsWholeScrapeIsTheDifference() {
    ServerHistogram beforeRestart = ServerHistogram.parse(scrape(5000, 5000, 5000, 5000), ServerHistogram.EDGE_REQUEST_SECONDS);
    ServerHistogram afterRestart = ServerHistogram.parse(scrape(10, 40, 60, 100), ServerHistogram.EDGE_REQUEST_SECONDS);

    ServerHistogram second = afterRestart.since(beforeRestart);

    assertThat(second.count()).isEqualTo(100);
    assertThat(second.quantileUpperBoundMs(0.99)).isEqualTo(Double.POSITIVE_INFINITY);
    // 40 of 100 at or under 5 ms, 60 at or under 10: the median is in the 5-10 ms bucket
    assertThat(second.quantileUpperBoundMs(0.5)).isEqualTo(10.0);
  }

  @Test
  void secondsAddUpBucketByBucket() {
    ServerHistogram fast = ServerHistogram.parse(scrape(100, 100, 100, 100), ServerHistogram.EDGE_REQUEST_SECONDS);
    ServerHistogram slow = ServerHistogram.parse(scrape(0, 0, 0, 2), ServerHistogram.EDGE_REQUEST_SECONDS);

    ServerHistogram both = fast.plus(slow);

    assertThat(both.count()).isEqualTo(102);
    assertThat(both.shareAtOrUnderMs(1)).isCloseTo(100 / 102.0, within(1e-9));
    // 2 of 102 beyond 10 ms: the 99th percentile is past every finite bucket
    assertThat(both.quantileUpperBoundMs(0.99)).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(both.quantileUpperBoundMs(0.98)).isEqualTo(1.0);
  }

  @Test
  void labelSetsOfOneHistogramAreSummedAndOtherMetricsIgnored() {
    String text = "updraft_edge_request_seconds_bucket{route=\"a\",le=\"0.001\"} 3\n"
        + "updraft_edge_request_seconds_bucket{route=\"b\",le=\"0.001\"} 4\n"
        + "updraft_edge_request_seconds_bucket{route=\"a\",le=\"+Inf\"} 5\n"
        + "updraft_edge_request_seconds_bucket{route=\"b\",le=\"+Inf\"} 4\n"
        + "updraft_edge_event_loop_delay_seconds_bucket{le=\"0.001\"} 99\n";

    ServerHistogram h = ServerHistogram.parse(text, ServerHistogram.EDGE_REQUEST_SECONDS);

    assertThat(h.count()).isEqualTo(9);
    assertThat(h.shareAtOrUnderMs(1)).isCloseTo(7 / 9.0, within(1e-9));
    assertThat(ServerHistogram.parse("process_cpu_usage 0.5\n", ServerHistogram.EDGE_REQUEST_SECONDS).isEmpty()).isTrue();
    assertThat(ServerHistogram.parse("", ServerHistogram.EDGE_REQUEST_SECONDS).quantileUpperBoundMs(0.99)).isNaN();
  }
}
