package dev.updraft.load;

import dev.updraft.common.KafkaClientConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import dev.updraft.load.baseline.BaselineServer;
import dev.updraft.load.events.EventLogGenerator;
import dev.updraft.load.report.HtmlReport;
import dev.updraft.load.report.Summary;
import dev.updraft.load.run.LoadRun;
import dev.updraft.load.run.RunConfig;
import dev.updraft.load.run.ServerPrerun;
import dev.updraft.load.run.Timeseries;
import dev.updraft.load.traffic.Profiles;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./updraft load ...}: the open-model load generator, traffic replay, the baseline server, the
 * report renderer and the event-log generator. The launcher calls {@link #run}; nothing here calls
 * {@code System.exit}.
 *
 * <p>Exit status: {@value #EXIT_OK} success; {@value #EXIT_BUG} unexpected failure; {@value #EXIT_USAGE}
 * bad usage or configuration; {@value #EXIT_INVALID} the run completed but is INVALID (the generator
 * dropped requests it could not start on time); {@value #EXIT_THRESHOLDS} the run is valid but its
 * error rate exceeded {@code --max-error-rate}; {@value #EXIT_UNREACHABLE} the target could not be
 * reached or discovered, or result files could not be written.
 */
public final class LoadCommand {
  public static final int EXIT_OK = 0;
  public static final int EXIT_BUG = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_INVALID = 3;
  public static final int EXIT_THRESHOLDS = 4;
  public static final int EXIT_UNREACHABLE = 5;

  static final String USAGE = String.join("\n",
      "usage: updraft load <command> [flags]",
      "",
      "commands:",
      "  run       an open-model load run of a profile against --target (see load/README.md)",
      "  replay FILE --speed X --target URL   replay recorded device requests (JSON lines) open-model",
      "  baseline  serve pre-built bytes (a capture file, or a fixed directive) for the machine's ceiling",
      "  report --summary S.json --timeseries T.csv [--out R.html]   re-render the HTML report",
      "  events    generate a realistic event log (JSON lines and/or Kafka) for the cost-of-scale scenario",
      "",
      "run flags (defaults in brackets):",
      "  --target URL[,URL]     base URL(s); several = round-robin split with failover to the survivor",
      "  --app demo | --path /apps/demo/manifest",
      "  --profile xprem|xprem-short|smoke|knee|storm|constant [xprem]   --scale F  --time-scale F",
      "  --rate R --duration 60s (constant)   --knee-from 1000 --knee-to 20000 --knee-step 1000 --knee-ramp 5s --knee-hold 20s",
      "  --arrivals uniform|poisson [uniform]",
      "  --devices 100000 --seed 42 --platforms ios:60,android:40 --channels production --runtime-versions 1.0.0 --up-to-date 0.95",
      "  --signature (send expo-expect-signature) --signature-keyid main --verify-certificate PEM",
      "  --assets (storm openers download the launch asset) --asset-hash first|always|off --asset-url-rewrite FROM=TO",
      "  --asset-patches true|false (default true: a device on an earlier update asks for a bundle patch, A-IM: bsdiff)",
      "  --asset-encoding clients|identity (default clients: Accept-Encoding as each platform's client sends it; decoded before hashing)",
      "  --event-loops 1 --connections 64 --max-in-flight 10000 --max-lag 100ms --timeout 10s --grace 5s",
      "  --trigger-url URL --trigger-method POST --trigger-body JSON|@file --trigger-token T --trigger-at 625s --trigger-wait 30s",
      "  --metrics name=URL,... --metric-names alias=metric{label=\"v\"},... --pids name=PID,... --health-path /readyz",
      "  --baseline --baseline-profile knee --baseline-event-loops 2 --baseline-jvm-opts '-Xmx512m' --baseline-cpus 1 (taskset -c)",
      "  --name load --out-dir . --interval 1s --progress 5s --max-error-rate 0.001 --knee-p99 10ms --warmup 200",
      "  --warmup-on mirror|target [mirror]: the --warmup requests go to an in-process copy of the target's discovered",
      "    answers (the generator's own code warms up, signatures verified, and the target gets no warm-up traffic) or to",
      "    the target itself",
      "  --server-prerun D [0s]: before the measured run, the same traffic (the profile's first D, played again from its",
      "    start when shorter, no push trigger) against the target for D, unmeasured (not in the summary, no CPU sampled);",
      "    with --baseline, the same against the fresh baseline server before its run (the servers' JIT done first)",
      "  --device-log FILE: write what every device did (served, full / patch download, launched) per update, one line per",
      "    device, update and stage, when the run ends (for comparing with the server's download funnel)",
      "",
      "exit status: 0 ok, 1 bug, 2 usage, 3 INVALID run (drops), 4 error rate above --max-error-rate, 5 target unreachable");

  private LoadCommand() {}

  /** Runs one command; returns the exit status. */
  public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h")) {
      out.println(USAGE);
      return args.length == 0 ? EXIT_USAGE : EXIT_OK;
    }
    String cmd = args[0];
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    for (String a : rest) {
      if (a.equals("--help") || a.equals("-h")) {
        out.println(USAGE);
        return EXIT_OK;
      }
    }
    try {
      switch (cmd) {
        case "run":
          return runCommand(rest, env, out, err);
        case "replay":
          return replayCommand(rest, env, out, err);
        case "baseline":
          return baselineCommand(rest, env, out, err);
        case "report":
          return reportCommand(rest, env, out, err);
        case "events":
          return eventsCommand(rest, env, out, err);
        default:
          err.println("updraft load: unknown command '" + cmd + "'\n" + USAGE);
          return EXIT_USAGE;
      }
    } catch (ConfigException e) {
      err.println("updraft load " + cmd + ": " + e.getMessage());
      return EXIT_USAGE;
    } catch (LoadRun.DiscoveryException e) {
      err.println("updraft load " + cmd + ": " + e.getMessage());
      return EXIT_UNREACHABLE;
    } catch (IOException e) {
      err.println("updraft load " + cmd + ": " + e);
      return EXIT_UNREACHABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("updraft load " + cmd + ": interrupted");
      return EXIT_BUG;
    } catch (RuntimeException e) {
      err.println("updraft load " + cmd + ": unexpected failure: " + e);
      e.printStackTrace(err);
      return EXIT_BUG;
    }
  }

  private static int runCommand(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException, LoadRun.DiscoveryException {
    Settings s = Settings.parse(args, env);
    if (!s.positional().isEmpty()) {
      throw new ConfigException("run takes flags only: got '" + s.positional().get(0) + "'");
    }
    RunConfig c = RunConfig.forRun(s);
    Files.createDirectories(c.outDir());
    out.println("updraft load run: profile " + c.profile().name() + " (" + c.profile().description() + "), "
        + Profiles.fmt(Math.round(c.profile().durationS())) + " s, targets " + c.targets());
    ServerPrerun.run(c, "target", c.targets(), out);
    LoadRun target = new LoadRun(c, "target", out);
    target.execute(c.targets());
    LoadRun base = null;
    if (c.baseline()) {
      Path capture = c.outDir().resolve(c.name() + "-capture.json");
      Summary.JSON.writeValue(capture.toFile(), BaselineServer.captureJson(target.discovered()));
      base = runBaseline(c, capture, out);
    }
    return finish(c, target, base, args, "run", out, err);
  }

  private static LoadRun runBaseline(RunConfig c, Path capture, PrintStream out)
      throws IOException, InterruptedException, LoadRun.DiscoveryException {
    List<String> cmd = new ArrayList<>();
    if (c.baselineCpus() != null) {
      // on the CPUs the server under test had (the edge pinned with taskset): the same core for the same work
      cmd.addAll(List.of("taskset", "-c", c.baselineCpus()));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String o : c.baselineJvmOpts().trim().split("\\s+")) {
      if (!o.isEmpty()) {
        cmd.add(o);
      }
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(LoadMain.class.getName());
    cmd.addAll(List.of("baseline", "--port", "0", "--capture", capture.toString(), "--event-loops", Integer.toString(c.baselineEventLoops())));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line;
      int port = -1;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("baseline listening on port ")) {
          port = Integer.parseInt(line.substring("baseline listening on port ".length()).trim().split(" ")[0]);
          break;
        }
      }
      if (port <= 0) {
        throw new LoadRun.DiscoveryException("the baseline server did not start (exit " + (p.isAlive() ? "still running" : p.exitValue()) + ")");
      }
      Thread drain = new Thread(() -> {
        try {
          while (r.readLine() != null) {
            // discard the child's output
          }
        } catch (IOException e) {
          // the child is gone
        }
      }, "baseline-output");
      drain.setDaemon(true);
      drain.start();
      String url = "http://127.0.0.1:" + port;
      out.println("updraft load run: baseline server pid " + p.pid() + " at " + url + ", profile " + c.baselineProfile().name());
      ServerPrerun.run(c.forBaseline(), "baseline", List.of(url), out);
      LoadRun base = new LoadRun(c.forBaseline(), "baseline", out);
      Map<String, Long> pids = new java.util.LinkedHashMap<>(Map.of("baseline", p.pid()));
      pids.put("generator", ProcessHandle.current().pid());
      base.sampleProcesses(pids);
      base.execute(List.of(url));
      return base;
    } finally {
      p.destroy();
      if (!p.waitFor(5, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
      }
    }
  }

  private static int finish(RunConfig c, LoadRun target, LoadRun base, String[] args, String command, PrintStream out, PrintStream err)
      throws IOException {
    ObjectNode summary = Summary.build(target, base, Arrays.asList(args), command);
    Timeseries all = new Timeseries();
    all.addAll(target.timeseries().rows());
    if (base != null) {
      List<Timeseries.Row> rows = new ArrayList<>();
      for (Timeseries.Row r : base.timeseries().rows()) {
        rows.add(new Timeseries.Row(r.t(), "baseline-" + r.source(), r.metric(), r.scenario(), r.value()));
      }
      all.addAll(rows);
    }
    Path json = c.outDir().resolve(c.name() + "-summary.json");
    Path csv = c.outDir().resolve(c.name() + "-timeseries.csv");
    Path html = c.outDir().resolve(c.name() + "-report.html");
    Summary.JSON.writeValue(json.toFile(), summary);
    all.write(csv);
    Files.writeString(html, HtmlReport.render(summary, all), StandardCharsets.UTF_8);
    JsonNode totals = summary.path("results").path("totals");
    boolean valid = summary.path("run").path("valid").asBoolean() && (base == null || summary.path("baseline").path("valid").asBoolean());
    out.println("updraft load " + command + ": " + (valid ? "VALID" : "INVALID (requests dropped)") + ", sent "
        + totals.path("requests_sent").asLong() + ", errors " + totals.path("errors").asLong() + ", dropped "
        + totals.path("dropped").asLong() + ", p99 " + totals.path("latency_ms").path("p99").asDouble() + " ms");
    JsonNode cap = summary.path("capacity");
    out.println("capacity: sustained " + cap.path("measured_sustained_rps").asDouble() + " req/s, knee found "
        + cap.path("knee_found").asBoolean() + (base != null ? ", vs baseline " + summary.path("baseline").path("ratio") : ""));
    out.println("wrote " + json + ", " + csv + ", " + html);
    if (!valid) {
      err.println("updraft load " + command + ": INVALID run: " + summary.path("run").path("invalid_reason").asText("the baseline run dropped requests"));
      return EXIT_INVALID;
    }
    double rate = totals.path("error_rate").asDouble();
    if (rate > c.maxErrorRate()) {
      err.println("updraft load " + command + ": error rate " + rate + " above --max-error-rate " + c.maxErrorRate()
          + ": " + summary.path("results").path("errors_by_kind"));
      return EXIT_THRESHOLDS;
    }
    return EXIT_OK;
  }

  private static int replayCommand(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException, LoadRun.DiscoveryException {
    Settings s = Settings.parse(args, env);
    if (s.positional().size() != 1) {
      throw new ConfigException("replay takes one FILE (JSON lines of recorded requests): got " + s.positional());
    }
    RunConfig c = RunConfig.forReplay(s, Path.of(s.positional().get(0)));
    Files.createDirectories(c.outDir());
    out.println("updraft load replay: " + c.profile().description() + " against " + c.targets());
    LoadRun run = new LoadRun(c, "target", out);
    run.execute(c.targets());
    return finish(c, run, null, args, "replay", out, err);
  }

  static boolean explicit(String[] args, String flag) {
    for (String a : args) {
      if (a.equals("--" + flag) || a.startsWith("--" + flag + "=")) {
        return true;
      }
    }
    return false;
  }

  static final Set<String> BASELINE_FLAGS = Set.of("port", "bind", "capture", "event-loops", "duration");

  private static int baselineCommand(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    Settings s = Settings.parse(args, env);
    s.rejectUnknown(BASELINE_FLAGS);
    Path capture = s.path("capture", null);
    Map<String, BaselineServer.Entry> entries = capture == null ? BaselineServer.defaultEntries() : BaselineServer.readCapture(capture);
    int loops = s.integer("event-loops", 2, 1, 64);
    Vertx vertx = Vertx.builder().with(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(loops)).build();
    try {
      int port = BaselineServer.start(vertx, entries, s.string("bind", "127.0.0.1"), s.port("port", 3900, true), loops)
          .await(10, TimeUnit.SECONDS);
      out.println("baseline listening on port " + port + " pid " + ProcessHandle.current().pid() + " native "
          + vertx.isNativeTransportEnabled() + " entries " + entries.size());
      out.flush();
      CountDownLatch forever = new CountDownLatch(1);
      if (s.has("duration")) {
        forever.await(s.duration("duration", java.time.Duration.ZERO).toMillis(), TimeUnit.MILLISECONDS);
      } else {
        forever.await();
      }
      return EXIT_OK;
    } catch (java.util.concurrent.TimeoutException e) {
      err.println("updraft load baseline: the server did not start within 10 s");
      return EXIT_BUG;
    } finally {
      vertx.close();
    }
  }

  static final Set<String> REPORT_FLAGS = Set.of("summary", "timeseries", "out");

  private static int reportCommand(String[] args, Map<String, String> env, PrintStream out, PrintStream err) throws IOException {
    Settings s = Settings.parse(args, env);
    s.rejectUnknown(REPORT_FLAGS);
    Path summary = Path.of(s.required("summary"));
    Path csv = Path.of(s.required("timeseries"));
    String def = summary.getFileName().toString().replace("-summary.json", "") + "-report.html";
    Path html = s.path("out", summary.resolveSibling(def));
    JsonNode root = Summary.JSON.readTree(summary.toFile());
    Files.writeString(html, HtmlReport.render(root, Timeseries.read(csv)), StandardCharsets.UTF_8);
    out.println("wrote " + html);
    return EXIT_OK;
  }

  private static int eventsCommand(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws IOException, InterruptedException {
    Settings s = Settings.parse(args, env);
    s.rejectUnknown(EventLogGenerator.FLAGS);
    EventLogGenerator.Spec spec = EventLogGenerator.spec(s);
    boolean any = false;
    if (s.has("out")) {
      EventLogGenerator.Written w = EventLogGenerator.toFile(spec, Path.of(s.required("out")), out::println);
      out.println("wrote " + w.events() + " events (" + w.bytes() + " bytes) for " + w.apps() + " apps to " + s.required("out"));
      any = true;
    }
    // only an explicit flag writes to Kafka: UPDRAFT_KAFKA_BOOTSTRAP in the environment must not send fake
    // apps into a real deployment's event log
    if (explicit(args, "kafka-bootstrap")) {
      try {
        EventLogGenerator.Written w = EventLogGenerator.toKafka(spec, s.required("kafka-bootstrap"), KafkaClientConfig.from(s), s.string("topic-prefix", ""),
            out::println);
        out.println("appended " + w.events() + " events (" + w.bytes() + " bytes) for " + w.apps() + " apps to "
            + s.string("topic-prefix", "") + "updraft.events");
      } catch (java.util.concurrent.ExecutionException e) {
        err.println("updraft load events: " + e.getMessage() + (e.getCause() != null ? ": " + e.getCause() : ""));
        return EXIT_UNREACHABLE;
      }
      any = true;
    }
    if (!any) {
      throw new ConfigException("events needs --out FILE and/or --kafka-bootstrap HOST:PORT");
    }
    return EXIT_OK;
  }
}
