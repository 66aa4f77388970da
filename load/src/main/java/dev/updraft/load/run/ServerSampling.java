package dev.updraft.load.run;

import dev.updraft.common.ConfigException;
import dev.updraft.load.traffic.Profile;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Samples the server side and the generator itself: Prometheus {@code /metrics} text scraped over HTTP
 * (parsed here; no client library) and {@code /proc/<pid>/stat|status} for CPU seconds and RSS. Runs
 * on its own thread, so a slow scrape never delays a request. Rows go to the {@link Timeseries}.
 */
final class ServerSampling implements Runnable {
  /** A Prometheus metric to sample: an alias for the result files, the metric name, an optional label filter. */
  record MetricSpec(String alias, String name, String labelFilter) {}

  /** Default aliases and names (overridable with {@code --metric-names alias=name{label="v"},...}). */
  static final String DEFAULT_METRICS =
      "cpu_usage=process_cpu_usage,heap_bytes=jvm_memory_used_bytes{area=\"heap\"},"
          + "gc_pause_seconds=jvm_gc_pause_seconds_sum,event_loop_delay_seconds=updraft_edge_event_loop_delay_seconds_sum,"
          + "checkins_dropped=updraft_edge_checkins_dropped_total,ingest_lag_records=updraft_ingest_lag_records";

  private final Map<String, String> metricsUrls;
  private final Map<String, Long> pids;
  private final List<MetricSpec> specs;
  private final Timeseries ts;
  private final long startNanos;
  private final long periodNanos;
  private final Profile profile;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
  private final Map<String, double[]> lastCpu = new LinkedHashMap<>();
  private volatile boolean stop;
  /** The first failure of each scraped source (by name); guarded by this. */
  private final Map<String, String> scrapeErrors = new LinkedHashMap<>();
  /** Per scraped source, its last scrape of the edge's request-time histogram (for the next second's difference). */
  private final Map<String, ServerHistogram> lastHistogram = new LinkedHashMap<>();
  /** Per scraped source, then per phase ({@code all}: the whole run), the requests it served; guarded by this. */
  private final Map<String, Map<String, ServerHistogram>> served = new LinkedHashMap<>();

  /** Per scraped source, per phase and {@code all}: the server-side latency of the requests it served in the run. */
  synchronized Map<String, Map<String, ServerHistogram>> served() {
    Map<String, Map<String, ServerHistogram>> copy = new LinkedHashMap<>();
    served.forEach((k, v) -> copy.put(k, new LinkedHashMap<>(v)));
    return copy;
  }

  synchronized Map<String, String> scrapeErrors() {
    return new LinkedHashMap<>(scrapeErrors);
  }

  ServerSampling(Map<String, String> metricsUrls, Map<String, Long> pids, List<MetricSpec> specs, Timeseries ts,
      long startNanos, Duration period, Profile profile) {
    this.metricsUrls = metricsUrls;
    this.pids = pids;
    this.specs = specs;
    this.ts = ts;
    this.startNanos = startNanos;
    this.periodNanos = period.toNanos();
    this.profile = profile;
  }

  static List<MetricSpec> parseSpecs(String spec) {
    List<MetricSpec> r = new ArrayList<>();
    for (String item : splitTopLevel(spec)) {
      int eq = item.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException("--metric-names takes alias=metric_name{label=\"value\"} items: got '" + item + "'");
      }
      String alias = item.substring(0, eq).trim();
      String rest = item.substring(eq + 1).trim();
      int brace = rest.indexOf('{');
      r.add(brace < 0 ? new MetricSpec(alias, rest, null) : new MetricSpec(alias, rest.substring(0, brace), rest.substring(brace + 1, rest.length() - 1)));
    }
    return r;
  }

  /** Splits on commas outside braces. */
  static List<String> splitTopLevel(String s) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    StringBuilder cur = new StringBuilder();
    for (char c : s.toCharArray()) {
      if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth--;
      }
      if (c == ',' && depth == 0) {
        if (cur.toString().trim().length() > 0) {
          out.add(cur.toString().trim());
        }
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (cur.toString().trim().length() > 0) {
      out.add(cur.toString().trim());
    }
    return out;
  }

  /** {@code name=value,name=value} into an ordered map. */
  static Map<String, String> namedList(String flag, String spec) {
    Map<String, String> m = new LinkedHashMap<>();
    if (spec == null) {
      return m;
    }
    for (String item : spec.split(",")) {
      String s = item.trim();
      if (s.isEmpty()) {
        continue;
      }
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new ConfigException("--" + flag + " takes name=value items separated by commas: got '" + s + "'");
      }
      m.put(s.substring(0, eq).trim(), s.substring(eq + 1).trim());
    }
    return m;
  }

  /**
   * The sum of the samples of {@code name} in Prometheus text whose labels contain every
   * {@code k="v"} pair of {@code labelFilter}; NaN when none.
   */
  static double value(String text, String name, String labelFilter) {
    List<String> required = new ArrayList<>();
    if (labelFilter != null && !labelFilter.isBlank()) {
      for (String p : labelFilter.split(",")) {
        required.add(p.trim());
      }
    }
    double sum = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      String l = line.trim();
      if (l.isEmpty() || l.startsWith("#") || !l.startsWith(name)) {
        continue;
      }
      int after = name.length();
      if (l.length() == after) {
        continue;
      }
      char c = l.charAt(after);
      String labels = "";
      int valueStart;
      if (c == '{') {
        int close = l.indexOf('}', after);
        if (close < 0) {
          continue;
        }
        labels = l.substring(after + 1, close);
        valueStart = close + 1;
      } else if (c == ' ' || c == '\t') {
        valueStart = after;
      } else {
        continue;
      }
      boolean match = true;
      for (String r : required) {
        if (!containsLabel(labels, r)) {
          match = false;
          break;
        }
      }
      if (!match) {
        continue;
      }
      String[] rest = l.substring(valueStart).trim().split("\\s+");
      if (rest.length == 0 || rest[0].isEmpty()) {
        continue;
      }
      double v = parseValue(rest[0]);
      if (!Double.isNaN(v)) {
        sum += v;
        found = true;
      }
    }
    return found ? sum : Double.NaN;
  }

  private static boolean containsLabel(String labels, String kv) {
    for (String p : labels.split(",")) {
      if (p.trim().equals(kv)) {
        return true;
      }
    }
    return false;
  }

  private static double parseValue(String s) {
    switch (s) {
      case "+Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      case "NaN": return Double.NaN;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          return Double.NaN;
        }
    }
  }

  /** CPU seconds (user + system) of a process from {@code /proc/<pid>/stat}; NaN if gone. */
  static double cpuSeconds(String pid) {
    return cpuSeconds(pid, false);
  }

  /** As {@link #cpuSeconds(String)}, with {@code reaped} the CPU of the children it has waited for too. */
  static double cpuSeconds(String pid, boolean reaped) {
    try {
      String stat = Files.readString(Path.of("/proc", pid, "stat"));
      // the command name may hold spaces: fields start after the last ')'
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      long utime = Long.parseLong(f[11]);
      long stime = Long.parseLong(f[12]);
      if (reaped) {
        utime += Long.parseLong(f[13]);
        stime += Long.parseLong(f[14]);
      }
      return (utime + stime) / (double) CLOCK_TICKS;
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /**
   * CPU seconds of a process tree: the process, its live descendants (PostgreSQL's backends under its postmaster,
   * `updraft dev`'s embedded PostgreSQL under the dev JVM), and the children each of them has already reaped;
   * a descendant whose pid is in {@code named} is left out with its own descendants, since it is sampled under its
   * own name (once it has exited and been reaped, its CPU is its parent's, as the kernel counts it). NaN if the
   * process is gone.
   */
  static double treeCpuSeconds(long pid, Collection<Long> named) {
    double own = cpuSeconds(Long.toString(pid), true);
    if (Double.isNaN(own)) {
      return Double.NaN;
    }
    double sum = own;
    ArrayDeque<ProcessHandle> todo = new ArrayDeque<>();
    ProcessHandle.of(pid).ifPresent(h -> h.children().forEach(todo::add));
    for (int visited = 0; !todo.isEmpty() && visited < 10_000; visited++) {
      ProcessHandle h = todo.poll();
      if (named.contains(h.pid())) {
        continue;
      }
      double c = cpuSeconds(Long.toString(h.pid()), true);
      if (!Double.isNaN(c)) {
        sum += c;
      }
      h.children().forEach(todo::add);
    }
    return sum;
  }

  /** Clock ticks per second of /proc times (USER_HZ is 100 on Linux for every architecture we run). */
  static final long CLOCK_TICKS = 100;

  /** A field of {@code /proc/<pid>/status} in kB (VmRSS, VmHWM), NaN if absent. */
  static double statusKb(String pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
        if (line.startsWith(field + ":")) {
          String v = line.substring(field.length() + 1).trim();
          return Double.parseDouble(v.split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
    return Double.NaN;
  }

  void stop() {
    stop = true;
  }

  @Override
  public void run() {
    long next = startNanos;
    long first = startNanos - System.nanoTime();
    if (first > 0) {
      try {
        Thread.sleep(first / 1_000_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    sampleOnce();
    while (!stop) {
      next += periodNanos;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      if (!stop) {
        sampleOnce();
      }
    }
  }

  void sampleOnce() {
    long now = System.nanoTime();
    double t = (now - startNanos) / 1e9;
    String scenario = Timeseries.scenarioAt(profile, t);
    for (Map.Entry<String, Long> e : pids.entrySet()) {
      String pid = Long.toString(e.getValue());
      double cpu = treeCpuSeconds(e.getValue(), pids.values());
      double rssMb = statusKb(pid, "VmRSS") / 1024.0;
      double[] last = lastCpu.get(e.getKey());
      if (!Double.isNaN(cpu)) {
        if (last != null) {
          double cores = (cpu - last[0]) / ((now - last[1]) / 1e9);
          ts.add(t, e.getKey(), "cpu_cores", scenario, cores);
        }
        ts.add(t, e.getKey(), "cpu_seconds", scenario, cpu);
        lastCpu.put(e.getKey(), new double[] {cpu, now});
      }
      if (!Double.isNaN(rssMb)) {
        ts.add(t, e.getKey(), "rss_mb", scenario, rssMb);
      }
    }
    for (Map.Entry<String, String> e : metricsUrls.entrySet()) {
      String body;
      try {
        HttpResponse<String> r =
            http.send(HttpRequest.newBuilder(URI.create(e.getValue())).timeout(Duration.ofSeconds(2)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          noteError(e.getKey(), "status=" + r.statusCode());
          ts.add(t, e.getKey(), "server_up", scenario, 0);
          continue;
        }
        body = r.body();
      } catch (IOException | IllegalArgumentException ex) {
        noteError(e.getKey(), ex.toString());
        // a server being restarted: when it stopped answering, read by restart-verdict.py
        ts.add(t, e.getKey(), "server_up", scenario, 0);
        continue;
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
      ts.add(t, e.getKey(), "server_up", scenario, 1);
      serverLatency(e.getKey(), body, t, scenario);
      for (MetricSpec s : specs) {
        double v = value(body, s.name(), s.labelFilter());
        if (!Double.isNaN(v)) {
          double scaled = s.alias().endsWith("_bytes") ? v / (1024 * 1024) : v;
          String alias = s.alias().endsWith("_bytes") ? s.alias().substring(0, s.alias().length() - 6) + "_mb" : s.alias();
          ts.add(t, e.getKey(), alias.toLowerCase(Locale.ROOT), scenario, scaled);
        }
      }
    }
  }

  /**
   * The requests the source served since its previous scrape, from its own histogram: rows {@code server_requests},
   * {@code server_p50_ms} and {@code server_p99_ms} (bucket upper bounds), and the sums per phase. The first scrape only
   * sets the origin (what the server did before the run is not the run's).
   */
  private void serverLatency(String source, String body, double t, String scenario) {
    ServerHistogram now = ServerHistogram.parse(body, ServerHistogram.EDGE_REQUEST_SECONDS);
    if (now.isEmpty()) {
      return;
    }
    ServerHistogram last = lastHistogram.put(source, now);
    if (last == null) {
      return;
    }
    ServerHistogram d = now.since(last);
    ts.add(t, source, "server_requests", scenario, d.count());
    if (d.count() > 0) {
      ts.add(t, source, "server_p50_ms", scenario, d.quantileUpperBoundMs(0.50));
      ts.add(t, source, "server_p99_ms", scenario, d.quantileUpperBoundMs(0.99));
    }
    synchronized (this) {
      Map<String, ServerHistogram> m = served.computeIfAbsent(source, k -> new LinkedHashMap<>());
      m.merge("all", d, ServerHistogram::plus);
      m.merge(scenario, d, ServerHistogram::plus);
    }
  }

  private synchronized void noteError(String source, String what) {
    scrapeErrors.putIfAbsent(source, what);
  }
}
