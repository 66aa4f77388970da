package dev.updraft.edge;

import dev.updraft.edge.image.StructuredHeaders;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one device request says, read from its headers (names case-insensitive) with the query
 * fallbacks {@code platform}, {@code runtime-version}, {@code channel-name} and {@code app} (a header
 * wins). Confined to the event loop handling the request.
 */
final class DeviceRequest {
  /** Clients send at most 5 failed ids; more are ignored. */
  static final int MAX_FAILED_IDS = 10;
  static final int MAX_FATAL_ERROR = 1024;
  /** The keyid clients use when their code-signing metadata names none. */
  static final String ROOT = "root";
  /**
   * The member of {@code expo-extra-params} that overrides the channel: {@code Updates.setExtraParamAsync(
   * "updraft-channel", "qa")} moves a release build to channel qa (QA branch surfing, no rebuild, anti-bricking
   * left on) until it is set to null; it wins over {@code expo-channel-name}.
   */
  static final String CHANNEL_PARAM = "updraft-channel";

  final String appId;
  /** As sent (null when absent); {@link #platform} is the checked constant or null. */
  final String platformRaw;
  final String runtimeVersion;
  final String channel;
  final String clientId;
  final String currentId;
  final String embeddedId;
  final List<String> failedIds;
  final String fatalError;
  final boolean expectSignature;
  /**
   * The {@code keyid} of {@code expo-expect-signature} ({@code root} when it names none, as clients read a
   * missing keyid); null when the header is absent.
   */
  final String expectKeyId;
  /**
   * The ring's instance of {@link #expectKeyId} once the request was matched to a key of the app's ring (what the
   * check-in records); null before, without a signature asked, or for a keyid the ring lacks.
   */
  String ringKeyId;
  final String accept;
  /** The request's {@link AddressBuckets address bucket} (CheckIn.addressBucket); null when none is known. */
  final String addressBucket;

  DeviceRequest(HttpServerRequest req, String appId) {
    this(req, appId, null);
  }

  DeviceRequest(HttpServerRequest req, String appId, AddressBuckets buckets) {
    MultiMap h = req.headers();
    String query = req.query();
    this.appId = appId;
    this.platformRaw = headerOrQuery(req, h, query, Names.PLATFORM, "platform");
    this.runtimeVersion = headerOrQuery(req, h, query, Names.RUNTIME_VERSION, "runtime-version");
    String extra = h.get(Names.EXTRA_PARAMS);
    String override = extra == null ? null : emptyToNull(StructuredHeaders.stringMember(extra, CHANNEL_PARAM));
    this.channel = override != null ? override : headerOrQuery(req, h, query, Names.CHANNEL_NAME, "channel-name");
    this.clientId = lowerOrNull(h.get(Names.CLIENT_ID));
    this.currentId = lowerOrNull(h.get(Names.CURRENT_UPDATE_ID));
    this.embeddedId = lowerOrNull(h.get(Names.EMBEDDED_UPDATE_ID));
    this.failedIds = failedIds(h.get(Names.RECENT_FAILED_UPDATE_IDS));
    this.fatalError = truncate(h.get(Names.FATAL_ERROR));
    String expect = h.get(Names.EXPECT_SIGNATURE);
    this.expectSignature = expect != null;
    this.expectKeyId = expect == null ? null : expectKeyId(expect);
    this.accept = h.get(Names.ACCEPT);
    this.addressBucket = buckets == null ? null
        : buckets.of(req.remoteAddress(), buckets.trustsForwardedFor() ? h.get(Names.X_FORWARDED_FOR) : null);
  }

  /** The app id of {@code GET /manifest}: {@code expo-app-id}, else {@code ?app=}; null when neither. */
  static String appIdOf(HttpServerRequest req) {
    return headerOrQuery(req, req.headers(), req.query(), Names.APP_ID, "app");
  }

  private static String headerOrQuery(HttpServerRequest req, MultiMap h, String query, CharSequence header, String param) {
    String v = emptyToNull(h.get(header));
    if (v == null && query != null) {
      v = emptyToNull(req.getParam(param));
    }
    return v;
  }

  private static String emptyToNull(String s) {
    if (s == null) {
      return null;
    }
    String t = s.trim();
    return t.isEmpty() ? null : t;
  }

  /** Lower-cases without allocating when already lower case (Android); iOS sends upper case. */
  static String lowerOrNull(String s) {
    s = emptyToNull(s);
    if (s == null) {
      return null;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      // ASCII (every id a client sends) by range; anything else as before, by Character.isUpperCase
      if (c < 0x80 ? c >= 'A' && c <= 'Z' : Character.isUpperCase(c)) {
        return s.toLowerCase(Locale.ROOT);
      }
    }
    return s;
  }

  /** The last {@code expo-expect-signature} value read and its keyid (immutable; shared by the event loops). */
  private static final class ExpectMemo {
    final String header;
    final String keyId;

    ExpectMemo(String header, String keyId) {
      this.header = header;
      this.keyId = keyId;
    }
  }

  /**
   * The last header value parsed, with its keyid: a fleet sends a handful of distinct values (one per
   * build's code-signing metadata), so most requests compare strings instead of parsing. Racy by design:
   * any thread may replace it, and each instance is immutable, so a reader sees a matching pair or a miss.
   */
  private static ExpectMemo lastExpect = new ExpectMemo("", ROOT);

  /**
   * The {@code keyid} that {@code expo-expect-signature} names ({@link #ROOT} when it names none), as
   * {@link StructuredHeaders#stringMember} reads it.
   */
  static String expectKeyId(String expect) {
    ExpectMemo m = lastExpect;
    if (m.header.equals(expect)) {
      return m.keyId;
    }
    String keyId = StructuredHeaders.stringMember(expect, "keyid");
    keyId = keyId == null ? ROOT : keyId;
    lastExpect = new ExpectMemo(expect, keyId);
    return keyId;
  }

  /**
   * The ids of {@code expo-recent-failed-update-ids}: an SF list of quoted strings
   * ({@code "a…", "b…"}); bare tokens are accepted too, parameters ignored, ids lower-cased.
   */
  static List<String> failedIds(String v) {
    if (v == null || v.isBlank()) {
      return List.of();
    }
    List<String> out = new ArrayList<>(4);
    int i = 0;
    int n = v.length();
    while (i < n && out.size() < MAX_FAILED_IDS) {
      char c = v.charAt(i);
      if (c == ' ' || c == '\t' || c == ',') {
        i++;
      } else if (c == '"') {
        int end = v.indexOf('"', i + 1);
        if (end < 0) {
          break;
        }
        add(out, v.substring(i + 1, end));
        i = skipToComma(v, end + 1);
      } else {
        int end = i;
        while (end < n && v.charAt(end) != ',' && v.charAt(end) != ';' && v.charAt(end) != ' ') {
          end++;
        }
        add(out, v.substring(i, end));
        i = skipToComma(v, end);
      }
    }
    return out;
  }

  private static void add(List<String> out, String id) {
    String l = lowerOrNull(id);
    if (l != null) {
      out.add(l);
    }
  }

  private static int skipToComma(String v, int from) {
    int c = v.indexOf(',', from);
    return c < 0 ? v.length() : c + 1;
  }

  /** {@code expo-fatal-error} cut to 1024 characters, never splitting a surrogate pair. */
  static String truncate(String s) {
    if (s == null || s.length() <= MAX_FATAL_ERROR) {
      return s;
    }
    int end = Character.isHighSurrogate(s.charAt(MAX_FATAL_ERROR - 1)) ? MAX_FATAL_ERROR - 1 : MAX_FATAL_ERROR;
    return s.substring(0, end);
  }
}
