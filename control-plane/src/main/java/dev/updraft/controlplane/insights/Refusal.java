package dev.updraft.controlplane.insights;

import dev.updraft.events.CheckIn;
import java.time.Instant;
import java.util.Locale;

/**
 * Requests the edges refused with one reason, from builds of one runtime version and embedded update:
 * how many distinct devices, how many requests, and when first and last. A build that can never update
 * ("sends no channel") shows here from its first launches, not in a device's logs.
 *
 * @param reason the error code the edge answered ({@code missing-channel}, {@code unknown-key-id}, ...)
 * @param runtimeVersion null: the requests sent none
 * @param embeddedUpdateId null: the requests sent none
 * @param devices distinct client ids
 * @param requests refused requests, with or without a client id
 */
public record Refusal(
    String reason, String runtimeVersion, String embeddedUpdateId, long devices, long requests, Instant firstSeen,
    Instant lastSeen) {

  /** One sentence: {@code 1,204 devices on runtime 1.0.0 send no channel}. */
  public String summary() {
    String who = devices > 0
        ? String.format(Locale.US, "%,d device%s", devices, devices == 1 ? "" : "s")
        : String.format(Locale.US, "%,d request%s without a client id", requests, requests == 1 ? "" : "s");
    String on = runtimeVersion == null ? " sending no runtime version" : " on runtime " + runtimeVersion;
    String embedded = embeddedUpdateId == null ? "" : " (embedded update " + embeddedUpdateId + ")";
    return who + on + embedded + " " + what(devices == 1 || devices == 0 && requests == 1);
  }

  private String what(boolean one) {
    switch (reason) {
      case "missing-channel":
        return one ? "sends no channel (expo-channel-name); set updates.requestHeaders or a default channel"
            : "send no channel (expo-channel-name); set updates.requestHeaders or a default channel";
      case "missing-runtime-version":
        return one ? "sends no runtime version" : "send no runtime version";
      case "invalid-platform":
        return one ? "sends no platform, or one that is neither ios nor android" : "send no platform, or one that is neither ios nor android";
      case "unknown-key-id":
        return one ? "asks for a signature with a keyid the app has no key for" : "ask for a signature with a keyid the app has no key for";
      case "signing-not-configured":
        return one ? "expects signatures from an app that has no key" : "expect signatures from an app that has no key";
      case "update-not-signed":
        return one ? "asks for a signature an update lacks" : "ask for a signature an update lacks";
      case CheckIn.REASON_PREVIOUSLY_FAILED:
      case CheckIn.REASON_NO_UPDATE_FOR_RUNTIME:
      case "rollback-needs-protocol-1":
        return (one ? "speaks" : "speak") + " protocol 0 and got no answer (" + reason + "): upgrade expo-updates";
      default:
        return (one ? "was" : "were") + " refused with " + reason;
    }
  }
}
