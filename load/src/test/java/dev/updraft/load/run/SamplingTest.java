package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Prometheus text parsing and /proc sampling. */
class SamplingTest {
  static final String TEXT = String.join("\n",
      "# HELP process_cpu_usage The recent cpu usage for the JVM process",
      "# TYPE process_cpu_usage gauge",
      "process_cpu_usage 0.4375",
      "# TYPE jvm_memory_used_bytes gauge",
      "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 1.048576E7",
      "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"} 2097152.0",
      "jvm_memory_used_bytes{area=\"nonheap\",id=\"Metaspace\"} 5.0E7",
      "updraft_edge_checkins_dropped_total 12 1700000000000",
      "updraft_edge_checkins_dropped_totalx 99",
      "jvm_gc_pause_seconds_sum{action=\"end of minor GC\",cause=\"G1 Evacuation Pause\"} 0.25",
      "jvm_gc_pause_seconds_sum{action=\"end of major GC\",cause=\"System.gc()\"} 0.5",
      "weird_metric NaN",
      "");

  @Test
  void sumsTheSamplesOfAMetricMatchingTheLabelFilter() {
    assertThat(ServerSampling.value(TEXT, "process_cpu_usage", null)).isEqualTo(0.4375);
    assertThat(ServerSampling.value(TEXT, "jvm_memory_used_bytes", "area=\"heap\"")).isEqualTo(10485760 + 2097152);
    assertThat(ServerSampling.value(TEXT, "jvm_memory_used_bytes", null)).isEqualTo(10485760 + 2097152 + 5.0e7);
    assertThat(ServerSampling.value(TEXT, "updraft_edge_checkins_dropped_total", null)).isEqualTo(12);
    assertThat(ServerSampling.value(TEXT, "jvm_gc_pause_seconds_sum", null)).isCloseTo(0.75, within(1e-12));
    assertThat(ServerSampling.value(TEXT, "updraft_ingest_lag_records", null)).isNaN();
    assertThat(ServerSampling.value(TEXT, "weird_metric", null)).isNaN();
  }

  @Test
  void metricNamesAreConfigurable() {
    List<ServerSampling.MetricSpec> specs = ServerSampling.parseSpecs("heap_bytes=jvm_memory_used_bytes{area=\"heap\",id=\"x\"},lag=my_lag");
    assertThat(specs).containsExactly(
        new ServerSampling.MetricSpec("heap_bytes", "jvm_memory_used_bytes", "area=\"heap\",id=\"x\""),
        new ServerSampling.MetricSpec("lag", "my_lag", null));
    assertThat(ServerSampling.parseSpecs(ServerSampling.DEFAULT_METRICS)).extracting(ServerSampling.MetricSpec::name)
        .contains("process_cpu_usage", "jvm_memory_used_bytes", "updraft_edge_checkins_dropped_total", "updraft_ingest_lag_records");
  }

  /**
   * The default aliases read series an edge really exposes: its event-loop delay is a histogram, so only its
   * {@code _bucket}, {@code _count}, {@code _sum} and {@code _max} series exist (the bare name, the default until
   * 2026-12-02, matched none and left the column empty).
   */
  @Test
  void theDefaultEventLoopDelaySumsTheEdgesHistogramOverItsLoops() {
    String edge = String.join("\n",
        "# TYPE updraft_edge_event_loop_delay_seconds histogram",
        "updraft_edge_event_loop_delay_seconds_bucket{loop=\"0\",le=\"0.001\"} 40",
        "updraft_edge_event_loop_delay_seconds_count{loop=\"0\"} 50",
        "updraft_edge_event_loop_delay_seconds_sum{loop=\"0\"} 0.125",
        "updraft_edge_event_loop_delay_seconds_count{loop=\"1\"} 50",
        "updraft_edge_event_loop_delay_seconds_sum{loop=\"1\"} 0.375",
        "# TYPE updraft_edge_event_loop_delay_seconds_max gauge",
        "updraft_edge_event_loop_delay_seconds_max{loop=\"0\"} 0.3",
        "");
    ServerSampling.MetricSpec delay = ServerSampling.parseSpecs(ServerSampling.DEFAULT_METRICS).stream()
        .filter(m -> m.alias().equals("event_loop_delay_seconds")).findFirst().orElseThrow();
    assertThat(ServerSampling.value(edge, delay.name(), delay.labelFilter())).isEqualTo(0.5);
  }

  @Test
  void readsCpuSecondsAndRssOfAProcess() {
    String self = Long.toString(ProcessHandle.current().pid());
    double cpu = ServerSampling.cpuSeconds(self);
    assertThat(cpu).isGreaterThan(0);
    double rssKb = ServerSampling.statusKb(self, "VmRSS");
    assertThat(rssKb).isGreaterThan(1024);
    assertThat(ServerSampling.cpuSeconds("999999999")).isNaN();
  }

  @Test
  void aProcessCountsTheCpuOfItsChildrenExceptThoseSampledUnderTheirOwnName() throws Exception {
    // a shell that only waits, and below it a child that burns a core (for at most 10 s)
    Process p = new ProcessBuilder("sh", "-c", "timeout 10 sh -c 'while :; do :; done'; sleep 1").start();
    try {
      long parent = p.pid();
      ProcessHandle child = null;
      double tree = 0;
      // until the child has burnt 0.3 s (it runs on: the reading below is taken while it is alive)
      for (int i = 0; i < 800 && tree <= 0.3; i++) {
        Thread.sleep(10);
        child = child != null ? child : ProcessHandle.of(parent).flatMap(h -> h.children().findFirst()).orElse(null);
        tree = ServerSampling.treeCpuSeconds(parent, List.of(parent));
      }
      assertThat(child).as("the shell's child").isNotNull();
      double own = ServerSampling.cpuSeconds(Long.toString(parent));
      double withoutNamedChild = ServerSampling.treeCpuSeconds(parent, List.of(parent, child.pid()));
      // (as PostgreSQL's postmaster, whose backends do the work: the parent alone looks idle)
      assertThat(own).isLessThan(0.2);
      assertThat(tree).isGreaterThan(0.3);
      assertThat(withoutNamedChild).isLessThan(0.2);
      assertThat(ServerSampling.treeCpuSeconds(999_999_999L, List.of())).isNaN();
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly().waitFor();
    }
  }
}
