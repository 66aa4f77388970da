package dev.updraft.systemtests.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.systemtests.reliability.CliRun;
import dev.updraft.systemtests.reliability.RawHttp;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** An iOS device (protocol 1, multipart) that asks an edge for a signature with a given {@code keyid}. */
final class SignedDevice {
  private SignedDevice() {}

  /**
   * What the edge answered: the name of the multipart part ({@code manifest} or {@code directive}), its exact
   * body and its {@code expo-signature}.
   */
  record Answer(String part, byte[] body, String signatureHeader) {
    ExpoSignature signature() {
      return ExpoSignature.parse(signatureHeader);
    }

    String id() {
      try {
        return CliRun.JSON.readTree(body).path("id").asText(null);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    String type() {
      try {
        return CliRun.JSON.readTree(body).path("type").asText(null);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The status of one request as {@link #ask} sends it (no current update). */
  static int status(int edgePort, String app, String channel, String keyId) {
    try (RawHttp c = new RawHttp(edgePort, 10_000)) {
      RawHttp.Response r = c.exchange(request(app, channel, "status-probe", keyId, null).getBytes(StandardCharsets.US_ASCII));
      return r == null ? -1 : r.status();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String request(String app, String channel, String clientId, String keyId, String currentId) {
    return "GET /apps/" + app + "/manifest HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        + "accept: multipart/mixed,application/expo+json,application/json\r\n"
        + "expo-platform: ios\r\nexpo-protocol-version: 1\r\nexpo-runtime-version: 1.0.0\r\n"
        + "expo-channel-name: " + channel + "\r\neas-client-id: " + clientId + "\r\n"
        + (currentId == null ? "" : "expo-current-update-id: " + currentId + "\r\n")
        + "expo-expect-signature: sig, keyid=\"" + keyId + "\", alg=\"rsa-v1_5-sha256\"\r\n\r\n";
  }

  /**
   * One request on {@code channel} with {@code expo-expect-signature: sig, keyid="<keyId>", alg="rsa-v1_5-sha256"}.
   *
   * @param currentId nullable: {@code expo-current-update-id}
   */
  static Answer ask(int edgePort, String app, String channel, String clientId, String keyId, String currentId) {
    String req = request(app, channel, clientId, keyId, currentId);
    try (RawHttp c = new RawHttp(edgePort, 10_000)) {
      RawHttp.Response r = c.exchange(req.getBytes(StandardCharsets.US_ASCII));
      assertThat(r).as("an answer from the edge").isNotNull();
      assertThat(r.status()).as("device answer %s", r.text()).isEqualTo(200);
      MultipartBody body = StrictMultipartParser.parse(r.header("content-type"), r.body());
      MultipartPart p = body.part("manifest") != null ? body.part("manifest") : body.part("directive");
      assertThat(p).as("a manifest or directive part in %s", r.text()).isNotNull();
      return new Answer(p.name(), p.body(), p.headerExact("expo-signature"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
