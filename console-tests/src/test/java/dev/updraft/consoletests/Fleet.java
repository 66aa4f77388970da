package dev.updraft.consoletests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Devices of the console test, driven through a real edge as {@code expo-updates} clients send their
 * requests (every header as a client sends it), on channel {@code production}, runtime 1.0.0, while the
 * newest group rolls out to 10 % of the devices over the group before it. Which devices are inside the
 * rollout is computed here from the documented bucketing ({@code sha256-v1}: SHA-256 of the lower-cased
 * client id, {@code :} and the rollout id, the first 8 bytes unsigned modulo 10,000, inside below 1,000),
 * so the client ids are chosen to be inside or outside before any request is sent.
 *
 * <p>Per platform (iOS / Android), each device with its own client id:
 *
 * <ul>
 *   <li>{@link #RUNS_NEW} (4 / 2) inside: on its embedded bundle it is served the new update, then checks in
 *       twice running it;
 *   <li>{@link #FAILED_NEW} (1 / 1) inside: served the new update, then back on its embedded bundle reporting
 *       the new update failed, and served the previous update instead;
 *   <li>{@link #SERVED_NEW} (3 / 1) inside: served the new update once, still on its embedded bundle;
 *   <li>{@link #RUNS_OLD} (4 / 3) outside: runs the previous update, gets "no update";
 *   <li>{@link #EMBEDDED} (2 / 2) outside: on its embedded bundle, served the previous update;
 *   <li>{@link #UNKNOWN} (1 / 1) outside: sends no current nor embedded update;
 * </ul>
 *
 * and one iOS launch of the new update without a client id (a launch, not a device). The numbers the
 * console must show are computed from these counts in {@link Expected}.
 */
final class Fleet {
  static final String CHANNEL = "production";
  static final String RUNTIME = "1.0.0";
  static final String[] PLATFORMS = {"ios", "android"};
  static final int RUNS_NEW = 0;
  static final int FAILED_NEW = 1;
  static final int SERVED_NEW = 2;
  static final int RUNS_OLD = 3;
  static final int EMBEDDED = 4;
  static final int UNKNOWN = 5;
  /** Devices per kind (the constants above), iOS then Android. */
  static final int[][] COUNTS = {{4, 1, 3, 4, 2, 1}, {2, 1, 1, 3, 2, 1}};
  /** Check-ins a device of each kind makes. */
  static final int[] CHECK_INS = {3, 2, 1, 1, 1, 1};
  /** The embedded update of each platform's binary: an id no publish made. */
  static final String[] EMBEDDED_ID = {"0d5e7c1a-2b3c-4d5e-8f90-a1b2c3d4e5f6", "6f5e4d3c-2b1a-4098-8f7e-6d5c4b3a2910"};

  private final String edge;
  private final String app;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private int sent;

  Fleet(String edgeUrl, String app) {
    this.edge = edgeUrl;
    this.app = app;
  }

  /** The check-ins sent so far (every device request of a known app is one). */
  int sent() {
    return sent;
  }

  /** What was served: a manifest's id, or a directive's type. */
  record Served(String manifestId, String directive) {}

  /**
   * {@code devices} iOS devices of a build without {@code updates.requestHeaders}: each sends no channel,
   * runs its embedded bundle ({@link #EMBEDDED_ID}) and is refused with a 400 {@code missing-channel}.
   * These are not counted in {@link #sent()} (a refusal is no launch on a channel).
   */
  void deafBuild(int devices) {
    for (int i = 0; i < devices; i++) {
      HttpRequest req = HttpRequest.newBuilder(URI.create(edge + "/apps/" + app + "/manifest"))
          .header("accept", "multipart/mixed,application/expo+json,application/json")
          .header("expo-platform", "ios")
          .header("expo-protocol-version", "1")
          .header("expo-runtime-version", RUNTIME)
          .header("eas-client-id", String.format(Locale.ROOT, "DEAF0000-0000-4000-8000-%012d", i))
          .header("expo-current-update-id", EMBEDDED_ID[0])
          .header("expo-embedded-update-id", EMBEDDED_ID[0])
          .build();
      HttpResponse<String> r;
      try {
        r = http.send(req, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new AssertionError("device request failed: " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
      assertThat(r.statusCode()).as("a request without a channel: %s", r.body()).isEqualTo(400);
      assertThat(r.body()).contains("missing-channel");
    }
  }

  /**
   * One device request.
   *
   * @param clientId null: no {@code eas-client-id}
   * @param current null: no {@code expo-current-update-id}
   * @param failed null: no {@code expo-recent-failed-update-ids}
   */
  Served checkIn(String platform, String clientId, String current, String embedded, String failed) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(edge + "/apps/" + app + "/manifest"))
        .header("accept", "multipart/mixed,application/expo+json,application/json")
        .header("expo-platform", platform)
        .header("expo-protocol-version", "1")
        .header("expo-runtime-version", RUNTIME)
        .header("expo-channel-name", CHANNEL);
    if (clientId != null) {
      // iOS sends its client id upper case, Android lower case
      b.header("eas-client-id", platform.equals("ios") ? clientId.toUpperCase(Locale.ROOT) : clientId);
    }
    if (current != null) {
      b.header("expo-current-update-id", current);
    }
    if (embedded != null) {
      b.header("expo-embedded-update-id", embedded);
    }
    if (failed != null) {
      b.header("expo-recent-failed-update-ids", "\"" + failed + "\"");
    }
    HttpResponse<byte[]> r;
    try {
      r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new AssertionError("device request failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    sent++;
    assertThat(r.statusCode()).as("edge answer to %s %s: %s", platform, clientId, new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    MultipartBody body = StrictMultipartParser.parse(r.headers().firstValue("content-type").orElse(""), r.body());
    MultipartPart manifest = body.part("manifest");
    try {
      if (manifest != null) {
        return new Served(ApiClient.JSON.readTree(manifest.body()).path("id").asText(), null);
      }
      return new Served(null, ApiClient.JSON.readTree(body.part("directive").body()).path("type").asText());
    } catch (IOException e) {
      throw new AssertionError("the edge's answer is not JSON", e);
    }
  }

  /** The numbers the console must show after {@link #drive}, and the device to look up. */
  record Expected(
      int[] devicesNow, int[] received, int[] failed, int[] launches, int[] failureReports,
      int ota, int embedded, int unknown, int devices, int[] onNew, int[] onOld, int[] onEmbedded, int[] onNothing,
      String lookup, int lookupBucket) {
    int total(int[] perPlatform) {
      return perPlatform[0] + perPlatform[1];
    }
  }

  /**
   * Drives every device once through its check-ins, checking what the edge answered each.
   *
   * @param previous the group rolled out over (its updates are the control)
   * @param rolledOut the group at 10 % (its {@code rollout.rolloutId} decides the buckets)
   */
  Expected drive(JsonNode previous, JsonNode rolledOut) {
    String rolloutId = rolledOut.path("rollout").path("rolloutId").asText();
    int pct = rolledOut.path("rollout").path("percentage").asInt();
    assertThat(rolloutId).as("the rollout's id").isNotEmpty();
    int[] devicesNow = new int[2];
    int[] received = new int[2];
    int[] failed = new int[2];
    int[] launches = new int[2];
    int[] reports = new int[2];
    int[] onNew = new int[2];
    int[] onOld = new int[2];
    int[] onEmbedded = new int[2];
    int[] onNothing = new int[2];
    String lookup = null;
    int lookupBucket = -1;
    int next = 0;
    for (int p = 0; p < 2; p++) {
      String platform = PLATFORMS[p];
      String newId = updateId(rolledOut, platform);
      String oldId = updateId(previous, platform);
      String emb = EMBEDDED_ID[p];
      for (int kind = 0; kind < COUNTS[p].length; kind++) {
        boolean inside = kind <= SERVED_NEW;
        for (int n = 0; n < COUNTS[p][kind]; n++) {
          String client;
          do {
            client = String.format(Locale.ROOT, "console-device-%04d", next++);
          } while ((bucket(client, rolloutId) < pct * 100) != inside);
          switch (kind) {
            case RUNS_NEW -> {
              assertThat(checkIn(platform, client, emb, emb, null)).isEqualTo(new Served(newId, null));
              assertThat(checkIn(platform, client, newId, emb, null)).isEqualTo(new Served(null, "noUpdateAvailable"));
              assertThat(checkIn(platform, client, newId, emb, null)).isEqualTo(new Served(null, "noUpdateAvailable"));
              received[p]++;
              devicesNow[p]++;
              launches[p] += 2;
              onNew[p]++;
            }
            case FAILED_NEW -> {
              assertThat(checkIn(platform, client, emb, emb, null)).isEqualTo(new Served(newId, null));
              // the new update failed to launch: back on the embedded bundle, reporting it; the edge skips the
              // failed update and offers the newest one the device did not report (the previous group)
              assertThat(checkIn(platform, client, emb, emb, newId)).isEqualTo(new Served(oldId, null));
              received[p]++;
              failed[p]++;
              reports[p]++;
              onEmbedded[p]++;
            }
            case SERVED_NEW -> {
              assertThat(checkIn(platform, client, emb, emb, null)).isEqualTo(new Served(newId, null));
              received[p]++;
              onEmbedded[p]++;
              if (lookup == null) {
                lookup = client;
                lookupBucket = bucket(client, rolloutId);
              }
            }
            case RUNS_OLD -> {
              assertThat(checkIn(platform, client, oldId, emb, null)).isEqualTo(new Served(null, "noUpdateAvailable"));
              onOld[p]++;
            }
            case EMBEDDED -> {
              assertThat(checkIn(platform, client, emb, emb, null)).isEqualTo(new Served(oldId, null));
              onEmbedded[p]++;
            }
            default -> {
              assertThat(checkIn(platform, client, null, null, null)).isEqualTo(new Served(oldId, null));
              onNothing[p]++;
            }
          }
        }
      }
      if (p == 0) {
        // a launch of the new update without a client id: never inside a partial rollout, so it gets the previous one
        assertThat(checkIn(platform, null, newId, emb, null)).isEqualTo(new Served(oldId, null));
        launches[p]++;
      }
    }
    int ota = onNew[0] + onNew[1] + onOld[0] + onOld[1];
    int embedded = onEmbedded[0] + onEmbedded[1];
    int unknown = onNothing[0] + onNothing[1];
    return new Expected(devicesNow, received, failed, launches, reports, ota, embedded, unknown, ota + embedded + unknown,
        onNew, onOld, onEmbedded, onNothing, lookup, lookupBucket);
  }

  static String updateId(JsonNode group, String platform) {
    for (JsonNode p : group.path("platforms")) {
      if (p.path("platform").asText().equals(platform)) {
        return p.path("updateId").asText();
      }
    }
    throw new AssertionError("no " + platform + " update in " + group);
  }

  /** The device's bucket in a rollout, by the documented {@code sha256-v1} rule (not the server's code). */
  static int bucket(String clientId, String rolloutId) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(clientId.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
      sha.update((byte) ':');
      sha.update(rolloutId.getBytes(StandardCharsets.UTF_8));
      byte[] d = sha.digest();
      long n = 0;
      for (int i = 0; i < 8; i++) {
        n = (n << 8) | (d[i] & 0xff);
      }
      return (int) Long.remainderUnsigned(n, 10_000);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Each platform's numbers for one table row, as the update page prints them. */
  static List<String> row(int[] v) {
    List<String> out = new ArrayList<>();
    for (int x : v) {
      out.add(Integer.toString(x));
    }
    return out;
  }
}
