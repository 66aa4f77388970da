package dev.updraft.load.run;

import dev.updraft.load.check.ResponseCheck;
import dev.updraft.load.fleet.Expectations;
import dev.updraft.load.fleet.Fleet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Before a run, learns the update the server serves for every (platform, runtime, channel) key, as a
 * device running its embedded bundle would see it, and checks that a device running that update gets
 * "no update"; both answers are captured for the baseline server. Also asks single manifest requests
 * for the push watch. Uses the JDK HTTP client, not the lanes.
 */
final class Discovery {
  private final RunConfig config;
  /** Nullable: where the discovery device's check-ins are logged ({@code --device-log}). */
  private final DeviceLog deviceLog;

  Discovery(RunConfig config, DeviceLog deviceLog) {
    this.config = config;
    this.deviceLog = deviceLog;
  }

  /** Learns every key's expected update into {@code expectations}; returns what was learned and captured. */
  List<Discovered> discover(String base, Fleet fleet, Expectations expectations) throws LoadRun.DiscoveryException {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    ResponseCheck check = new ResponseCheck(null);
    List<Discovered> out = new ArrayList<>();
    for (Fleet.Key k : fleet.keys()) {
      try {
        Captured m = ask(http, base, k, k.embeddedUpdateId());
        ResponseCheck.Answer a = check.check(m.status(), m.headers()::get, m.body(), k.runtimeVersion(), config.signature());
        if (!a.ok()) {
          throw new LoadRun.DiscoveryException("discovery of " + k.label() + " at " + base + config.path() + " failed: "
              + a.error().wire + " " + a.detail());
        }
        expectations.learn(k, a, System.nanoTime());
        Captured none = null;
        if (a.kind() == ResponseCheck.Kind.MANIFEST) {
          none = ask(http, base, k, a.updateId());
          ResponseCheck.Answer b = check.check(none.status(), none.headers()::get, none.body(), k.runtimeVersion(), config.signature());
          if (!b.ok() || b.kind() != ResponseCheck.Kind.NO_UPDATE) {
            throw new LoadRun.DiscoveryException("discovery of " + k.label() + ": a device running " + a.updateId()
                + " should get no update but got " + (b.ok() ? b.kind() : b.error().wire + " " + b.detail()));
          }
        }
        out.add(new Discovered(k, a.kind() == ResponseCheck.Kind.MANIFEST ? a.updateId() : null, a.createdAt(), m, none));
      } catch (IOException e) {
        throw new LoadRun.DiscoveryException("target not reachable for discovery: " + base + config.path() + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LoadRun.DiscoveryException("interrupted during discovery");
      }
    }
    return out;
  }

  private static String discoveryClient(RunConfig c) {
    return Fleet.nameUuid(c.seed(), "discovery").toString();
  }

  /** One manifest request as a device of key {@code k} running {@code currentId}. */
  Captured ask(HttpClient http, String base, Fleet.Key k, String currentId) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + config.path())).timeout(Duration.ofSeconds(10)).GET()
        .header("accept", "multipart/mixed,application/expo+json,application/json")
        .header("expo-platform", k.platform())
        .header("expo-protocol-version", "1")
        .header("expo-runtime-version", k.runtimeVersion())
        .header("expo-channel-name", k.channel())
        .header("eas-client-id", discoveryClient(config))
        .header("expo-current-update-id", currentId)
        .header("expo-embedded-update-id", k.embeddedUpdateId());
    if (config.signature()) {
      b.header("expo-expect-signature", "sig, keyid=\"" + config.signatureKeyId() + "\", alg=\"rsa-v1_5-sha256\"");
    }
    HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    Captured c = new Captured(r.statusCode(), flatten(r.headers()), r.body());
    if (deviceLog != null && r.statusCode() == 200) {
      ResponseCheck.Answer a = new ResponseCheck(null).check(c.status(), c.headers()::get, c.body(), k.runtimeVersion(), false);
      if (a.ok()) {
        deviceLog.checkIn(discoveryClient(config), k.platform(), currentId,
            a.kind() == ResponseCheck.Kind.MANIFEST ? a.updateId() : null);
      }
    }
    return c;
  }

  private static Map<String, String> flatten(HttpHeaders h) {
    Map<String, String> m = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (Map.Entry<String, List<String>> e : h.map().entrySet()) {
      if (!e.getValue().isEmpty()) {
        m.put(e.getKey(), e.getValue().get(0));
      }
    }
    return m;
  }
}
