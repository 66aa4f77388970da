package dev.updraft.edge;

import io.netty.util.AsciiString;

/**
 * Header names and fixed values, built once as {@link AsciiString}s so Netty writes and compares them
 * without re-encoding.
 */
final class Names {
  private Names() {}

  // request
  static final AsciiString ACCEPT = AsciiString.cached("accept");
  static final AsciiString PROTOCOL_VERSION = AsciiString.cached("expo-protocol-version");
  static final AsciiString PLATFORM = AsciiString.cached("expo-platform");
  static final AsciiString RUNTIME_VERSION = AsciiString.cached("expo-runtime-version");
  static final AsciiString CHANNEL_NAME = AsciiString.cached("expo-channel-name");
  static final AsciiString CLIENT_ID = AsciiString.cached("eas-client-id");
  static final AsciiString CURRENT_UPDATE_ID = AsciiString.cached("expo-current-update-id");
  static final AsciiString EMBEDDED_UPDATE_ID = AsciiString.cached("expo-embedded-update-id");
  static final AsciiString RECENT_FAILED_UPDATE_IDS = AsciiString.cached("expo-recent-failed-update-ids");
  static final AsciiString FATAL_ERROR = AsciiString.cached("expo-fatal-error");
  /** Read only with {@code --trust-forwarded-for}: the address bucket then comes from its last entry. */
  static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");
  static final AsciiString EXPECT_SIGNATURE = AsciiString.cached("expo-expect-signature");
  /** An SF-dictionary of strings the app sets with {@code Updates.setExtraParamAsync}; read for {@link DeviceRequest#CHANNEL_PARAM}. */
  static final AsciiString EXTRA_PARAMS = AsciiString.cached("expo-extra-params");
  static final AsciiString APP_ID = AsciiString.cached("expo-app-id");

  // response
  static final AsciiString SFV_VERSION = AsciiString.cached("expo-sfv-version");
  static final AsciiString SIGNATURE = AsciiString.cached("expo-signature");
  static final AsciiString MANIFEST_FILTERS = AsciiString.cached("expo-manifest-filters");
  static final AsciiString CACHE_CONTROL = AsciiString.cached("cache-control");
  static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  static final AsciiString ALLOW = AsciiString.cached("allow");
  static final AsciiString RETRY_AFTER = AsciiString.cached("retry-after");
  static final AsciiString AUTHORIZATION = AsciiString.cached("authorization");
  static final AsciiString WWW_AUTHENTICATE = AsciiString.cached("www-authenticate");
  static final AsciiString BEARER = AsciiString.cached("Bearer");

  static final AsciiString V0 = AsciiString.cached("0");
  static final AsciiString V1 = AsciiString.cached("1");
  static final AsciiString PRIVATE_NO_AGE = AsciiString.cached("private, max-age=0");
  static final AsciiString APPLICATION_JSON = AsciiString.cached("application/json");
  static final AsciiString APPLICATION_EXPO_JSON = AsciiString.cached("application/expo+json");
  static final AsciiString GET = AsciiString.cached("GET");
  static final AsciiString FIVE = AsciiString.cached("5");
  static final AsciiString PROMETHEUS_TEXT = AsciiString.cached("text/plain; version=0.0.4; charset=utf-8");
}
