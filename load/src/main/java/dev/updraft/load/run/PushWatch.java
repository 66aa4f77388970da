package dev.updraft.load.run;

import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.fleet.Fleet;
import java.io.IOException;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The push trigger's thread: fires the trigger at the profile's time, then polls each key as a device
 * running its embedded bundle until the new update shows, and records publish-to-visible per key.
 */
final class PushWatch implements Runnable {
  private final LoadRun run;
  private final Discovery discovery;
  volatile Trigger.Result result;
  volatile double firedAtS = Double.NaN;
  final Map<String, Double> visibleAfterS = new ConcurrentHashMap<>();

  PushWatch(LoadRun run, Discovery discovery) {
    this.run = run;
    this.discovery = discovery;
  }

  @Override
  public void run() {
    long at = run.startNanos + (long) (run.config.profile().triggerAtS() * 1e9);
    long wait = at - System.nanoTime();
    try {
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
    } catch (InterruptedException e) {
      return;
    }
    Trigger.Spec spec = run.config.trigger();
    if (spec == null || !spec.configured()) {
      return;
    }
    // what each key expects before the publish: fleet traffic may learn the new update before the call returns
    Map<Integer, Integer> before = new LinkedHashMap<>();
    for (Fleet.Key k : run.fleet.keys()) {
      before.put(k.index(), run.expectations.expectedIdx(k.index()));
    }
    long firedAt = System.nanoTime();
    firedAtS = (firedAt - run.startNanos) / 1e9;
    Trigger.Result r = Trigger.fire(spec);
    result = r;
    if (run.out != null) {
      run.out.println("[" + run.label + "] push trigger " + spec.method() + " " + spec.url() + " -> "
          + (r.error() != null ? r.error() : "status " + r.status()));
    }
    if (r.ok()) {
      watch(before, firedAt);
    }
  }

  /** Polls until every key expects something else than {@code before}, or the wait is over. */
  private void watch(Map<Integer, Integer> before, long firedAt) {
    long deadline = firedAt + run.config.triggerWait().toNanos();
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(1)).build();
    ResponseCheck check = new ResponseCheck(null);
    while (System.nanoTime() < deadline && !run.finished && visibleAfterS.size() < run.fleet.keys().size()) {
      for (Fleet.Key k : run.fleet.keys()) {
        if (visibleAfterS.containsKey(k.label())) {
          continue;
        }
        if (run.expectations.expectedIdx(k.index()) != before.get(k.index())) {
          visibleAfterS.put(k.label(), (System.nanoTime() - firedAt) / 1e9);
          continue;
        }
        try {
          Captured c = discovery.ask(http, run.targets.all.get(0).base, k, k.embeddedUpdateId());
          ResponseCheck.Answer a = check.check(c.status(), c.headers()::get, c.body(), k.runtimeVersion(), run.config.signature());
          if (a.ok()) {
            run.expectations.learn(k, a, System.nanoTime());
            if (run.expectations.expectedIdx(k.index()) != before.get(k.index())) {
              visibleAfterS.put(k.label(), (System.nanoTime() - firedAt) / 1e9);
            }
          }
        } catch (IOException e) {
          // the target may be restarting: try again
        } catch (InterruptedException e) {
          return;
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
