package dev.updraft.load.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.common.Settings;
import dev.updraft.load.LoadCommand;
import dev.updraft.load.Runs;
import dev.updraft.load.TestEdge;
import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.report.Capacity;
import dev.updraft.load.report.Summary;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** The result files: summary math by hand, the CSV and the HTML parsed back. */
class ReportTest {
  @TempDir Path dir;

  /** A run that is never executed: latencies are recorded by hand as the lanes would. */
  private LoadRun handRun(String... flags) {
    RunConfig c = RunConfig.forRun(Settings.parse(flags, Map.of()));
    LoadRun run = new LoadRun(c, "target", null);
    run.startNanos = System.nanoTime();
    run.targets = new Targets(c.targets(), run.startNanos);
    return run;
  }

  @Test
  void summaryPercentilesMatchHandComputedValues() {
    LoadRun run = handRun("--target", "http://127.0.0.1:1", "--profile", "constant", "--rate", "100", "--duration", "2s");
    // interval 1: 100 requests with latencies 1, 2, ..., 100 ms; interval 2: 100 requests of exactly 1 ms
    for (int ms = 1; ms <= 100; ms++) {
      run.stats.latency[0][0].recordValue(ms * 1000L);
      run.stats.add(0, Stats.SENT);
      run.stats.add(0, Stats.RESPONSES);
      run.stats.add(0, Stats.OK);
    }
    run.tick(1.0, false);
    for (int i = 0; i < 100; i++) {
      run.stats.latency[0][0].recordValue(1000L);
      run.stats.add(0, Stats.SENT);
      run.stats.add(0, Stats.RESPONSES);
    }
    run.stats.error(0, ErrorKind.WRONG_UPDATE);
    run.stats.add(0, Stats.DROP_LATE);
    run.tick(2.0, true);
    run.wallSeconds = 2;
    JsonNode s = Summary.build(run, null, List.of("run"), "run");
    JsonNode l = s.path("results").path("totals").path("latency_ms");
    // 200 values: 101 of 1 ms, then 2..100 ms. Nearest rank: p50 = 100th = 1 ms; p90 = 180th = 80 ms;
    // p99 = 198th = 98 ms; max 100 ms; mean = (100*1 + 5050) / 200 = 25.75 ms. HdrHistogram keeps 3 digits.
    assertThat(l.path("count").asLong()).isEqualTo(200);
    assertThat(l.path("p50").asDouble()).isCloseTo(1, within(0.01));
    assertThat(l.path("p90").asDouble()).isCloseTo(80, within(0.1));
    assertThat(l.path("p99").asDouble()).isCloseTo(98, within(0.1));
    assertThat(l.path("max").asDouble()).isCloseTo(100, within(0.1));
    assertThat(l.path("mean").asDouble()).isCloseTo(25.75, within(0.05));
    JsonNode t = s.path("results").path("totals");
    assertThat(t.path("requests_scheduled").asLong()).isEqualTo(200);
    assertThat(t.path("requests_sent").asLong()).isEqualTo(200);
    assertThat(t.path("errors").asLong()).isEqualTo(1);
    assertThat(t.path("error_rate").asDouble()).isEqualTo(0.005);
    assertThat(t.path("dropped").asLong()).isEqualTo(1);
    assertThat(s.path("run").path("valid").asBoolean()).isFalse();
    assertThat(s.path("results").path("errors_by_kind").path("wrong_update").asLong()).isEqualTo(1);
    // the CSV has per-interval percentiles, not cumulative ones: the second interval's p99 is 1 ms
    List<Timeseries.Row> p99 = run.ts.rows().stream().filter(r -> r.metric().equals("latency_p99_ms")).toList();
    assertThat(p99).hasSize(2);
    assertThat(p99.get(0).value()).isCloseTo(99, within(0.1));
    assertThat(p99.get(1).value()).isCloseTo(1, within(0.01));
    List<Timeseries.Row> target = run.ts.rows().stream().filter(r -> r.metric().equals("target_rps")).toList();
    assertThat(target).extracting(Timeseries.Row::value).containsExactly(100.0, 100.0);
    // MAU at capacity: 100 req/s hold failed (a drop), so nothing sustained
    assertThat(s.path("capacity").path("knee_found").asBoolean()).isFalse();
  }

  @Test
  void theSummarySaysHowLongTheServerPrerunWasOrThatThereWasNone() {
    LoadRun with = handRun("--target", "http://127.0.0.1:1", "--profile", "constant", "--rate", "100", "--duration", "2s",
        "--server-prerun", "30s");
    with.tick(2.0, true);
    JsonNode s = Summary.build(with, null, List.of("run"), "run");
    assertThat(s.path("run").path("server_prerun_seconds").asDouble()).isEqualTo(30.0);
    assertThat(s.path("limits").toString()).contains("Server pre-run: the same traffic ran 30.0 s against the target before the measured run");

    LoadRun without = handRun("--target", "http://127.0.0.1:1", "--profile", "constant", "--rate", "100", "--duration", "2s");
    without.tick(2.0, true);
    JsonNode n = Summary.build(without, null, List.of("run"), "run");
    assertThat(n.path("run").path("server_prerun_seconds").asDouble()).isZero();
    assertThat(n.path("limits").toString()).contains("No server pre-run");
  }

  @Test
  void capacityIsTheHighestPassingHoldAndTheKneeTheFirstFailureAboveIt() {
    LoadRun run = handRun("--target", "http://127.0.0.1:1", "--profile", "knee", "--knee-from", "1000", "--knee-to", "4000",
        "--knee-step", "1000", "--knee-ramp", "1s", "--knee-hold", "2s");
    // a 10 s opening ramp (window 0), then holds of 2 s at 1000, 2000, 3000, 4000 req/s (windows 1, 3, 5, 7); every request answered.
    // By hand: 1000 passes (1 ms), 2000 fails (every latency 50 ms > 10 ms), 3000 passes, 4000 fails (20 ms):
    // sustained 3000, knee at 4000, one failing hold below the sustained rate.
    int[] holdWindows = {1, 3, 5, 7};
    long[] latencyUs = {1000, 50_000, 1000, 20_000};
    for (int i = 0; i < 4; i++) {
      int n = (i + 1) * 1000 * 2;
      for (int k = 0; k < n; k++) {
        run.stats.latency[0][holdWindows[i]].recordValue(latencyUs[i]);
        run.stats.add(holdWindows[i], Stats.SENT);
        run.stats.add(holdWindows[i], Stats.RESPONSES);
      }
    }
    run.tick(21.0, true);
    Capacity c = Capacity.of(run);
    assertThat(c.sustainedRps()).isEqualTo(3000);
    assertThat(c.kneeFound()).isTrue();
    assertThat(c.kneeAtRps()).isEqualTo(4000);
    assertThat(c.kneeReason()).startsWith("p99 20");
    assertThat(c.failedHoldsBelow()).isEqualTo(1);
    assertThat(c.holds()).extracting(h -> h.path("pass").asBoolean()).containsExactly(true, false, true, false);
    // a knee search's drops above the last passing hold do not invalidate the run
    run.stats.add(7, Stats.DROP_INFLIGHT);
    assertThat(Capacity.invalidatingDrops(run)).isZero();
    run.stats.add(1, Stats.DROP_LATE);
    assertThat(Capacity.invalidatingDrops(run)).isEqualTo(1);
  }

  @Test
  void csvAndHtmlAreWrittenAndParseBack() throws Exception {
    try (TestEdge edge = new TestEdge()) {
      Runs.Outcome o = Runs.run(dir, "files", "--target", edge.url(), "--profile", "smoke", "--time-scale", "0.3",
          "--warmup", "20", "--max-lag", "10s", "--devices", "500", "--pids", "edge=" + ProcessHandle.current().pid(),
          "--metrics", "edge=" + edge.url() + "/metrics,gone=http://127.0.0.1:1/metrics");
      assertThat(o.exit()).as(o.err()).isEqualTo(0);
      // scraped server metrics: the heap is the sum of the heap series, in MB; a source that cannot be scraped is named
      JsonNode server = o.summary().path("results").path("server").path("edge");
      assertThat(server.path("cpu_usage").path("max").asDouble()).isEqualTo(0.25);
      assertThat(server.path("heap_mb").path("max").asDouble()).isEqualTo(3.0);
      assertThat(server.path("checkins_dropped").path("last").asDouble()).isEqualTo(3.0);
      assertThat(server.path("cpu_cores").path("samples").asInt()).isGreaterThan(0);
      assertThat(o.summary().path("results").path("server_scrape_errors").has("gone")).isTrue();
      // CSV: the header, five fields per line, numeric time and value, known metrics and sources
      List<String> lines = Files.readAllLines(o.file("-timeseries.csv"));
      assertThat(lines.get(0)).isEqualTo("t_seconds,source,metric,scenario,value");
      assertThat(lines.size()).isGreaterThan(20);
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.split(",", -1);
        assertThat(f).as(line).hasSize(5);
        Double.parseDouble(f[0]);
        if (!f[4].isEmpty()) {
          Double.parseDouble(f[4]);
        }
      }
      Timeseries ts = Timeseries.read(o.file("-timeseries.csv"));
      assertThat(ts.rows()).extracting(Timeseries.Row::metric).contains("target_rps", "completed_rps", "latency_p99_ms", "cpu_cores", "rss_mb");
      assertThat(ts.rows()).extracting(Timeseries.Row::source).contains("generator", "edge");
      assertThat(ts.rows()).extracting(Timeseries.Row::scenario).contains("fleet", "push_storm");
      // HTML: well-formed (XHTML-compatible), self-contained, with the charts as inline SVG
      String html = Files.readString(o.file("-report.html"));
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(new ByteArrayInputStream(html.replace("<!DOCTYPE html>", "").getBytes(StandardCharsets.UTF_8)));
      assertThat(doc.getElementsByTagName("svg").getLength()).isEqualTo(5);
      assertThat(doc.getElementsByTagName("polyline").getLength()).isGreaterThan(4);
      assertThat(doc.getElementsByTagName("table").getLength()).isGreaterThanOrEqualTo(3);
      assertThat(html).doesNotContain("<script", "<link", "src=", "@import");
      assertThat(html).contains("VALID run", "push_storm", "Limits");
      // report re-renders the same HTML from the files
      Path again = dir.resolve("again.html");
      int exit = LoadCommand.run(new String[] {"report", "--summary", o.file("-summary.json").toString(), "--timeseries",
          o.file("-timeseries.csv").toString(), "--out", again.toString()}, Map.of(), System.out, System.err);
      assertThat(exit).isZero();
      // the same page; chart points differ only by the CSV's rounding to 3 decimals
      String rerendered = Files.readString(again);
      assertThat(rerendered.split("<polyline").length).isEqualTo(html.split("<polyline").length);
      assertThat(rerendered.replaceAll("(?s)<svg.*?</svg>", "")).isEqualTo(html.replaceAll("(?s)<svg.*?</svg>", ""));
    }
  }
}
