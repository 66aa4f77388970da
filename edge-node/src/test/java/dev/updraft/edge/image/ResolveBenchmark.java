package dev.updraft.edge.image;

import dev.updraft.events.Bucketing;
import dev.updraft.events.EventPayload;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.RolloutEvents.Rollout;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH benchmark of the per-request decision ({@link Resolver#resolve}) on an image of 200 apps. Not a
 * test: never run by {@code verify}. How to run it and the results: {@code docs/benchmarks/edge-resolve.md}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ResolveBenchmark {
  private AppImage plain;
  private AppImage rollouts;
  private String latest;
  private String rolloutClient;
  private final List<String> failed = List.of("0b7c7c0e-3b5c-4a6e-9d83-2c1e7f6a9b10", "5f1d2f8e-9c1a-4b7e-8f2d-6a3c9e1b7d42");

  @Setup
  public void build() {
    ImageDelta d = new ImageDelta(ResolveImage.EMPTY);
    for (int a = 0; a < 200; a++) {
      long seq = 0;
      String app = a == 0 ? "plain" : a == 1 ? "rollouts" : "app-" + a;
      d.replay(Scenario.envelope(app, ++seq, new EventPayload.AppCreated(app)));
      d.replay(Scenario.envelope(app, ++seq, new EventPayload.ChannelMapped("production", "main",
          a == 1 ? new BranchRollout("br", "beta", 20, null) : null)));
      for (int g = 0; g < 20; g++) {
        Rollout r = a == 1 && g == 19 ? new Rollout("r", 30, app + "-g18", null) : null;
        d.replay(Scenario.envelope(app, ++seq, new EventPayload.UpdatePublished(
            Scenario.group(app + "-g" + g, a == 1 && g == 0 ? "beta" : "main", r))));
      }
    }
    ResolveImage img = d.apply();
    plain = img.app("plain");
    rollouts = img.app("rollouts");
    latest = "plain-g19-ios";
    // a device outside the branch rollout, so that the per-update rollout on main is consulted too
    for (int i = 0; rolloutClient == null; i++) {
      String id = "3f9a1c2e-7b4d-4e8f-9a6b-" + String.format("%012d", i);
      if (!Bucketing.inRollout(id, "br", 20)) {
        rolloutClient = id;
      }
    }
  }

  /** An outdated device: the newest manifest. */
  @Benchmark
  public Decision newUpdate() {
    return Resolver.resolve(plain, Platforms.IOS, "1.0.0", "production", "3f9a1c2e-7b4d-4e8f-9a6b-1c2d3e4f5a6b",
        "11111111-2222-4333-8444-555555555555", "11111111-2222-4333-8444-555555555555", List.of(), 1);
  }

  /** Most of a fleet: already on the newest, gets noUpdateAvailable. */
  @Benchmark
  public Decision alreadyLatest() {
    return Resolver.resolve(plain, Platforms.IOS, "1.0.0", "production", "3f9a1c2e-7b4d-4e8f-9a6b-1c2d3e4f5a6b",
        latest, "11111111-2222-4333-8444-555555555555", failed, 1);
  }

  /** A branch rollout and a per-update rollout consulted: two SHA-256 buckets. */
  @Benchmark
  public Decision underRollouts() {
    return Resolver.resolve(rollouts, Platforms.ANDROID, "1.0.0", "production", rolloutClient, null, null, List.of(), 1);
  }

  /** Runs this benchmark: {@code java -cp … dev.updraft.edge.image.ResolveBenchmark}. */
  /** {@code args[0]}, when given: where JMH writes its JSON result (for docs/benchmarks/). */
  public static void main(String[] args) throws RunnerException {
    OptionsBuilder o = new OptionsBuilder();
    o.include(ResolveBenchmark.class.getName() + ".*");
    if (args.length > 0) {
      o.resultFormat(org.openjdk.jmh.results.format.ResultFormatType.JSON).result(args[0]);
    }
    new Runner(o.build()).run();
  }
}
