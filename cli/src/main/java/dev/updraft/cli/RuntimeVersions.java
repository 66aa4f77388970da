package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The runtime version a publish uses when {@code --runtime-version} is left out, taken from the export's
 * public app config ({@code expoConfig.json}) the way expo computes it for a build
 * ({@code @expo/config-plugins} {@code Updates.getRuntimeVersion}): the platform's
 * {@code ios.runtimeVersion} / {@code android.runtimeVersion} when set, else {@code runtimeVersion}; a
 * string is the runtime version; the {@code appVersion} policy is {@code version} (default
 * {@code 1.0.0}); the {@code nativeVersion} policy is {@code version(buildNumber)} on iOS
 * ({@code ios.version}, else {@code version}, else {@code 1.0.0}; {@code ios.buildNumber}, default
 * {@code 1}) and {@code version(versionCode)} on Android ({@code android.versionCode}, default
 * {@code 1}). The {@code fingerprint} policy hashes the native project, which only expo can do: it and
 * every other policy are resolved by expo-updates' CLI in the project ({@link ExpoUpdatesCli}, through
 * {@link #settleEach}), or refused ({@link #settle}) with the command that prints the value.
 */
final class RuntimeVersions {
  /** expo-updates' stand-in string for a fingerprint runtime version; never a real one. */
  static final String FINGERPRINT_SENTINEL = "file:fingerprint";

  private RuntimeVersions() {}

  /** One platform's runtime version from the config: {@code value}, or {@code problem} saying why there is none. */
  record Resolved(String value, String problem, boolean byExpo) {
    static Resolved of(String value) {
      return new Resolved(value, null, false);
    }

    static Resolved none(String problem) {
      return new Resolved(null, problem, false);
    }

    /** A policy only expo computes (fingerprint, or one Updraft does not know): expo-updates' CLI resolves it. */
    static Resolved expo(String problem) {
      return new Resolved(null, problem, true);
    }
  }

  /** Resolves a policy runtime version for one platform the way expo does (expo-updates' CLI in the project). */
  interface PolicyResolver {
    String resolve(String platform) throws CliException;
  }

  /**
   * The runtime version of each platform of {@code platforms}: {@code flag} for all when given (as {@link #settle}),
   * else the config's, where a policy only expo computes (fingerprint) is resolved by {@code expo} and printed on
   * {@code err}. Platforms may differ: the caller publishes one group per runtime version.
   */
  static Map<String, String> settleEach(String flag, JsonNode config, Path configFile, List<String> platforms, PrintStream err,
      PolicyResolver expo) throws CliException {
    Map<String, String> byPlatform = new LinkedHashMap<>();
    if (flag != null || config == null) {
      String one = settle(flag, config, configFile, platforms, err);
      platforms.forEach(p -> byPlatform.put(p, one));
      return byPlatform;
    }
    for (String p : platforms) {
      Resolved r = resolve(config, p);
      if (r.value() != null) {
        byPlatform.put(p, r.value());
      } else if (r.byExpo()) {
        String v = expo.resolve(p);
        err.println("runtime version for " + p + ": " + v + " (" + configFile.getFileName() + " " + r.problem().replaceFirst(";.*", "")
            + "; resolved by npx expo-updates runtimeversion:resolve --platform " + p + ")");
        byPlatform.put(p, v);
      } else {
        throw CliException.usage("--runtime-version is required: " + configFile + " " + r.problem());
      }
    }
    return byPlatform;
  }

  /**
   * The runtime version to publish {@code platforms} with: {@code flag} when given (with a warning on
   * {@code err} when the config settles another one), else the config's, which must be the same for
   * every platform of the group.
   *
   * @param config nullable: the public app config
   * @throws CliException a usage error when the flag is needed: no config, a policy that cannot be
   *     computed here, or platforms whose runtime versions differ
   */
  static String settle(String flag, JsonNode config, Path configFile, List<String> platforms, PrintStream err) throws CliException {
    if (flag != null) {
      if (config != null) {
        for (String p : platforms) {
          Resolved r = resolve(config, p);
          if (r.value() != null && !r.value().equals(flag)) {
            err.println("warning: publishing with --runtime-version " + flag + ", but " + configFile + " gives " + p + " the runtime version "
                + r.value() + ": builds made from that config will not get this update");
          }
        }
      }
      return flag;
    }
    if (config == null) {
      throw CliException.usage("--runtime-version is required: there is no " + configFile + " to take it from"
          + " (npx expo config --type public --json > " + configFile + ", or give --runtime-version)");
    }
    Map<String, String> byPlatform = new LinkedHashMap<>();
    for (String p : platforms) {
      Resolved r = resolve(config, p);
      if (r.value() == null) {
        throw CliException.usage("--runtime-version is required: " + configFile + " " + r.problem());
      }
      byPlatform.put(p, r.value());
    }
    Set<String> distinct = new LinkedHashSet<>(byPlatform.values());
    if (distinct.size() > 1) {
      StringBuilder each = new StringBuilder();
      StringBuilder gives = new StringBuilder();
      for (Map.Entry<String, String> e : byPlatform.entrySet()) {
        gives.append(gives.length() == 0 ? "" : " and ").append(e.getKey()).append(' ').append(e.getValue());
        each.append(each.length() == 0 ? "" : ", then ").append("--platform ").append(e.getKey()).append(" --runtime-version '")
            .append(e.getValue()).append('\'');
      }
      throw CliException.usage("--runtime-version is required: " + configFile + " gives " + gives
          + ", but the updates of one group share one runtime version; publish each platform on its own: " + each);
    }
    return distinct.iterator().next();
  }

  /** The runtime version {@code config} gives {@code platform} ({@code ios} or {@code android}). */
  static Resolved resolve(JsonNode config, String platform) {
    JsonNode own = config.path(platform).get("runtimeVersion");
    JsonNode rv = own == null || own.isNull() ? config.get("runtimeVersion") : own;
    String where = own == null || own.isNull() ? "runtimeVersion" : platform + ".runtimeVersion";
    if (!truthy(rv)) {
      return Resolved.none("sets no runtimeVersion" + (own == null ? "" : " for " + platform) + " to take it from");
    }
    if (rv.isTextual()) {
      if (rv.textValue().equals(FINGERPRINT_SENTINEL)) {
        return Resolved.expo("has " + where + " \"" + FINGERPRINT_SENTINEL + "\", expo's stand-in for a fingerprint; " + resolveHint(platform));
      }
      return Resolved.of(rv.textValue());
    }
    JsonNode policy = rv.get("policy");
    if (!rv.isObject() || policy == null || !policy.isTextual()) {
      return Resolved.none("has " + where + " " + rv + ", neither a string nor a {\"policy\": ...} object");
    }
    switch (policy.textValue()) {
      case "appVersion":
        return Resolved.of(config.hasNonNull("version") ? text(config.get("version")) : "1.0.0");
      case "nativeVersion":
        return Resolved.of(nativeVersion(config, platform));
      case "fingerprint":
        return Resolved.expo("has " + where + " {\"policy\": \"fingerprint\"}: a hash of the native project that only expo computes; "
            + resolveHint(platform));
      default:
        return Resolved.expo("has " + where + " {\"policy\": \"" + policy.textValue()
            + "\"}, a policy Updraft does not compute (it computes appVersion and nativeVersion); " + resolveHint(platform));
    }
  }

  private static String resolveHint(String platform) {
    return "give --runtime-version the runtimeVersion that `npx expo-updates runtimeversion:resolve --platform " + platform + "` prints";
  }

  /** {@code version(buildNumber)} / {@code version(versionCode)}, as expo's {@code getNativeVersion}. */
  private static String nativeVersion(JsonNode config, String platform) {
    JsonNode iosVersion = config.path("ios").get("version");
    String version = truthy(iosVersion) ? text(iosVersion) : truthy(config.get("version")) ? text(config.get("version")) : "1.0.0";
    if (platform.equals("ios")) {
      JsonNode build = config.path("ios").get("buildNumber");
      return version + "(" + (truthy(build) ? text(build) : "1") + ")";
    }
    JsonNode code = config.path("android").get("versionCode");
    return version + "(" + (code == null || code.isNull() ? "1" : text(code)) + ")";
  }

  /** JavaScript's truthiness of a JSON value (absent, null, "", 0 and false are false). */
  private static boolean truthy(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return false;
    }
    if (n.isTextual()) {
      return !n.textValue().isEmpty();
    }
    if (n.isNumber()) {
      return n.doubleValue() != 0;
    }
    return !n.isBoolean() || n.booleanValue();
  }

  /** A JSON value as JavaScript's template string shows it ({@code 42}, not {@code 42.0}). */
  private static String text(JsonNode n) {
    if (n.isNumber()) {
      BigDecimal d = n.decimalValue().stripTrailingZeros();
      return d.scale() <= 0 ? d.toBigInteger().toString() : d.toPlainString();
    }
    return n.isTextual() ? n.textValue() : n.toString();
  }
}
