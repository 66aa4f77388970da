package dev.updraft.systemtests.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.SignatureVerifier;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Apps and updates made through the real CLI, and what a device should then be served. */
public final class Publishing {
  private Publishing() {}

  /** The update ids of a {@code publish}/{@code rollback} answer, iOS first. */
  public static List<String> updateIds(JsonNode published) {
    List<String> ios = new ArrayList<>();
    List<String> other = new ArrayList<>();
    for (JsonNode p : published.path("platforms")) {
      (p.path("platform").asText().equals("ios") ? ios : other).add(p.path("updateId").asText());
    }
    ios.addAll(other);
    return ios;
  }

  /** Creates {@code app} signed with the fixture key (or unsigned) and publishes fixture update 1 on {@code branch}. */
  public static JsonNode appWithUpdate(String server, String app, boolean signed, String branch) {
    if (signed) {
      CliRun.ok(server, Services.ADMIN, "apps", "create", app, "--certificate", Fixtures.certificatePem().toString(),
          "--private-key", Fixtures.privateKeyPkcs1Pem().toString());
    } else {
      CliRun.ok(server, Services.ADMIN, "apps", "create", app);
    }
    return publish(server, app, branch, 1);
  }

  /** Publishes fixture update {@code n} (1 or 2) of runtime 1.0.0 on {@code branch}. */
  public static JsonNode publish(String server, String app, String branch, int n, String... extra) {
    List<String> args = new ArrayList<>(List.of("publish", "--app", app, "--branch", branch, "--runtime-version", "1.0.0",
        "--dist", (n == 1 ? Fixtures.update1() : Fixtures.update2()).toString(), "--no-progress"));
    args.addAll(List.of(extra));
    return CliRun.ok(server, Services.ADMIN, args.toArray(String[]::new));
  }

  /**
   * The fuzz target: app {@code fuzz} (signed) with branch {@code main} (update 1), {@code beta} (update 2
   * rolling out to half of the devices over update 1) and {@code rb} (rolled back to embedded); app
   * {@code fuzz-plain} (unsigned) with {@code main}. Returns each publish and roll back answer in the order
   * made, keyed by {@code app/branch}.
   */
  public static List<Map.Entry<String, JsonNode>> fuzzApps(String server) {
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    out.add(Map.entry("fuzz/main", appWithUpdate(server, "fuzz", true, "main")));
    out.add(Map.entry("fuzz/beta", publish(server, "fuzz", "beta", 1)));
    out.add(Map.entry("fuzz/beta", publish(server, "fuzz", "beta", 2, "--rollout-percentage", "50")));
    out.add(Map.entry("fuzz/rb", publish(server, "fuzz", "rb", 1)));
    out.add(Map.entry("fuzz/rb",
        CliRun.ok(server, Services.ADMIN, "rollback", "--app", "fuzz", "--branch", "rb", "--runtime-version", "1.0.0", "--embedded")));
    out.add(Map.entry("fuzz-plain/main", appWithUpdate(server, "fuzz-plain", false, "main")));
    return out;
  }

  /** A normal iOS device request for {@code app} on {@code channel}, asking for a signature. */
  public static byte[] deviceRequest(String app, String channel, String clientId) {
    return ("GET /apps/" + app + "/manifest HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        + "accept: multipart/mixed,application/expo+json,application/json\r\n"
        + "expo-platform: ios\r\nexpo-protocol-version: 1\r\nexpo-runtime-version: 1.0.0\r\n"
        + "expo-channel-name: " + channel + "\r\neas-client-id: " + clientId + "\r\n"
        + "expo-expect-signature: sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** The id of the manifest in a multipart answer, after checking its framing and signature. */
  public static String servedId(RawHttp.Response r, SignatureVerifier verifier) {
    assertThat(r.status()).as("device answer %s", r.text()).isEqualTo(200);
    MultipartBody body = StrictMultipartParser.parse(r.header("content-type"), r.body());
    MultipartPart m = body.part("manifest");
    assertThat(m).as("a manifest part in %s", r.text()).isNotNull();
    assertThat(verifier.verify(m.body(), ExpoSignature.parse(m.headerExact("expo-signature"))))
        .as("the manifest verifies with the app's certificate").isTrue();
    try {
      return CliRun.JSON.readTree(m.body()).path("id").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A device on {@code channel} is served {@code expectedId}, signed with the fixture key. */
  public static void assertServesSigned(int edgePort, String app, String channel, String expectedId, SignatureVerifier verifier) {
    try (RawHttp c = new RawHttp(edgePort, 10_000)) {
      RawHttp.Response r = c.exchange(deviceRequest(app, channel, java.util.UUID.randomUUID().toString()));
      assertThat(servedId(r, verifier)).isEqualTo(expectedId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
