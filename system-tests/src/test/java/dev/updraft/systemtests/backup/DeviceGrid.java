package dev.updraft.systemtests.backup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.systemtests.support.Http;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.SignatureVerifier;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every device request a backup test compares: per app, channel, platform and runtime version, with no
 * signature asked and with each key id asked, as a new install (no current update) and as a device already
 * on an update; protocol 1 (multipart) and, without a signature, protocol 0. The answer kept is what a
 * device sees: status, the headers the protocol defines, and the exact body bytes.
 */
final class DeviceGrid {
  static final List<String> PLATFORMS = List.of("ios", "android");
  static final List<String> RUNTIMES = List.of("1.0.0", "2.0.0", "3.0.0");
  private static final List<String> HEADERS = List.of("content-type", "expo-protocol-version", "expo-sfv-version", "expo-manifest-filters",
      "expo-server-defined-headers", "expo-signature", "cache-control");

  private DeviceGrid() {}

  /** One request of the grid, named for messages. */
  record Ask(String app, String channel, String platform, String runtime, String keyId, String currentId, int protocol) {
    String name() {
      return app + "/" + channel + "/" + platform + "/" + runtime + " keyid=" + keyId + " current=" + currentId + " protocol=" + protocol;
    }
  }

  /** What a device got. */
  record Answer(int status, Map<String, String> headers, byte[] body) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Answer a && a.status == status && a.headers.equals(headers) && Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
      return status * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
      return status + " " + headers + " " + new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  static List<Ask> asks(List<String> apps, List<String> channels, List<String> keyIds, List<String> currentIds) {
    List<Ask> out = new ArrayList<>();
    for (String app : apps) {
      for (String channel : channels) {
        for (String platform : PLATFORMS) {
          for (String runtime : RUNTIMES) {
            for (String current : currentIds) {
              out.add(new Ask(app, channel, platform, runtime, null, current, 0));
              out.add(new Ask(app, channel, platform, runtime, null, current, 1));
              for (String k : keyIds) {
                out.add(new Ask(app, channel, platform, runtime, k, current, 1));
              }
            }
          }
        }
      }
    }
    return out;
  }

  /** The answers of the edge at {@code base} to every request, in order. */
  static Map<Ask, Answer> ask(String base, List<Ask> asks) throws Exception {
    Map<Ask, Answer> out = new LinkedHashMap<>();
    int n = 0;
    for (Ask a : asks) {
      List<String> h = new ArrayList<>(List.of("expo-platform", a.platform(), "expo-runtime-version", a.runtime(), "expo-channel-name",
          a.channel(), "expo-protocol-version", Integer.toString(a.protocol()), "eas-client-id",
          "00000000-0000-4000-8000-" + String.format("%012d", (n++ % 97) * 7919),
          "accept", a.protocol() == 1 ? "multipart/mixed,application/expo+json,application/json" : "application/expo+json,application/json"));
      if (a.keyId() != null) {
        h.addAll(List.of("expo-expect-signature", "sig, keyid=\"" + a.keyId() + "\", alg=\"rsa-v1_5-sha256\""));
      }
      if (a.currentId() != null) {
        h.addAll(List.of("expo-current-update-id", a.currentId()));
      }
      HttpResponse<byte[]> r = Http.getBytes(base + "/apps/" + a.app() + "/manifest", h.toArray(new String[0]));
      Map<String, String> headers = new LinkedHashMap<>();
      for (String name : HEADERS) {
        r.headers().firstValue(name).ifPresent(v -> headers.put(name, v));
      }
      out.put(a, new Answer(r.statusCode(), headers, r.body()));
    }
    return out;
  }

  /**
   * Checks the signature of every multipart answer that asked for one with the certificate of the key id
   * asked; returns how many were checked.
   */
  static int verifySignatures(Map<Ask, Answer> answers, Map<String, SignatureVerifier> byKeyId) {
    int checked = 0;
    for (Map.Entry<Ask, Answer> e : answers.entrySet()) {
      Ask a = e.getKey();
      Answer r = e.getValue();
      if (a.keyId() == null || r.status() != 200 || a.protocol() != 1) {
        continue;
      }
      MultipartBody body = StrictMultipartParser.parse(r.headers().get("content-type"), r.body());
      for (String partName : List.of("manifest", "directive")) {
        MultipartPart p = body.part(partName);
        if (p == null) {
          continue;
        }
        String header = p.headerExact("expo-signature");
        assertThat(header).as("a signature on the %s of %s", partName, a.name()).isNotNull();
        ExpoSignature sig = ExpoSignature.parse(header);
        assertThat(sig.keyId()).as(a.name()).isEqualTo(a.keyId());
        assertThat(byKeyId.get(a.keyId()).verify(p.body(), sig)).as("the %s of %s verifies with certificate %s", partName, a.name(), a.keyId())
            .isTrue();
        checked++;
      }
    }
    return checked;
  }
}
