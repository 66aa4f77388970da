package dev.updraft.edge;

import java.util.ArrayList;
import java.util.List;

/**
 * The headers one expo-updates client sends (protocol.md §1), built fluently; null values are left out.
 * Defaults are a current Android/iOS client: protocol 1, the clients' Accept, runtime 1.0.0, channel
 * {@code production}.
 */
final class Device {
  static final String CLIENT_ACCEPT = "multipart/mixed,application/expo+json,application/json";

  String platform = "ios";
  String protocol = "1";
  String runtime = "1.0.0";
  String channel = "production";
  String accept = CLIENT_ACCEPT;
  String clientId;
  String current;
  String embedded;
  String failed;
  String fatal;
  String expectSignature;
  String appId;
  String extraParams;

  static Device ios() {
    return new Device();
  }

  static Device of(String platform, int protocol) {
    Device d = new Device();
    d.platform = platform;
    d.protocol = protocol == 0 ? null : Integer.toString(protocol);
    return d;
  }

  Device platform(String v) {
    platform = v;
    return this;
  }

  Device protocol(String v) {
    protocol = v;
    return this;
  }

  Device runtime(String v) {
    runtime = v;
    return this;
  }

  Device channel(String v) {
    channel = v;
    return this;
  }

  Device accept(String v) {
    accept = v;
    return this;
  }

  Device client(String v) {
    clientId = v;
    return this;
  }

  Device current(String v) {
    current = v;
    return this;
  }

  Device embedded(String v) {
    embedded = v;
    return this;
  }

  Device failed(String v) {
    failed = v;
    return this;
  }

  Device fatal(String v) {
    fatal = v;
    return this;
  }

  /** Sends {@code expo-expect-signature} as a client with code signing configured does. */
  Device expectSignature() {
    expectSignature = "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\"";
    return this;
  }

  /** {@code expo-extra-params} as sent: the SF-dictionary {@code Updates.setExtraParamAsync} builds. */
  Device extraParams(String v) {
    extraParams = v;
    return this;
  }

  Device appHeader(String v) {
    appId = v;
    return this;
  }

  String[] headers() {
    List<String> h = new ArrayList<>();
    add(h, "accept", accept);
    add(h, "expo-platform", platform);
    add(h, "expo-protocol-version", protocol);
    add(h, "expo-runtime-version", runtime);
    add(h, "expo-channel-name", channel);
    add(h, "eas-client-id", clientId);
    add(h, "expo-current-update-id", current);
    add(h, "expo-embedded-update-id", embedded);
    add(h, "expo-recent-failed-update-ids", failed);
    add(h, "expo-fatal-error", fatal);
    add(h, "expo-expect-signature", expectSignature);
    add(h, "expo-app-id", appId);
    add(h, "expo-extra-params", extraParams);
    return h.toArray(new String[0]);
  }

  private static void add(List<String> h, String name, String value) {
    if (value != null) {
      h.add(name);
      h.add(value);
    }
  }
}
