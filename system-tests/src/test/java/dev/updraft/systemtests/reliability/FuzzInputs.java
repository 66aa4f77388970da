package dev.updraft.systemtests.reliability;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Deterministic bad device requests for the manifest route: input {@code i} of seed {@code s} is always
 * the same bytes, whatever the order or the thread that makes it. Each input starts from a well-formed
 * device request (a random app, platform, channel, ids, signing wish and Accept) and applies one to three
 * mutations from the classes the issue names: random bytes and invalid UTF-8 in header values, oversized
 * values, repeated headers, huge header counts, malformed structured fields in
 * {@code expo-expect-signature}, {@code expo-recent-failed-update-ids} and {@code expo-extra-params},
 * bad query strings and path segments, bad header names, odd protocol versions and Accept values; and,
 * sent alone on a connection because they change the message framing, other methods, HTTP versions,
 * bodies, content-length and transfer-encoding games, bare-LF and folded lines, and pure garbage.
 *
 * <p>Each input also says what its base request asks for ({@link Input#device()}), unless a mutation
 * changed a header that decides the answer, so that the answer can be checked against what was published
 * ({@link FuzzModel}).
 *
 * <p>Pipelined inputs never contain CR or LF inside a header line, so each is exactly one HTTP message.
 * Immutable and thread-safe.
 */
final class FuzzInputs {
  /**
   * One input: the request bytes, whether it must go alone on a connection, its mutation classes, whether
   * it carries {@code expo-expect-signature} (a device asking for a signed answer), and the device it
   * describes when no mutation touched what decides the answer (null otherwise).
   */
  record Input(long index, byte[] bytes, boolean alone, boolean head, String kinds, boolean asksSignature, Device device) {}

  /**
   * What a device request says about the device, as sent (ids lower-cased, as the protocol compares them).
   *
   * @param protocol {@code expo-protocol-version}: "0" or "1"
   * @param clientId null when absent
   * @param current null when absent
   * @param embedded null when absent
   */
  record Device(String app, String platform, String protocol, String runtimeVersion, String channel, String clientId,
      String current, String embedded, List<String> failed) {}

  /** The headers that decide which answer a device gets (the answer's format aside). */
  private static final java.util.Set<String> DECIDING = java.util.Set.of(
      "expo-platform", "expo-protocol-version", "expo-runtime-version", "expo-channel-name", "eas-client-id",
      "expo-current-update-id", "expo-embedded-update-id", "expo-recent-failed-update-ids", "expo-app-id");
  /** The member of {@code expo-extra-params} that overrides the channel: a value naming it decides the answer. */
  private static final String CHANNEL_PARAM = "updraft-channel";

  /** Ids a request may carry so that the resolver's comparisons are reached. */
  private final List<String> knownIds;
  private final long seed;

  private static final String[] APPS = {"fuzz", "fuzz", "fuzz", "fuzz-plain", "nope"};
  private static final String[] CHANNELS = {"main", "main", "beta", "rb", "unknown", "MAIN"};
  private static final String CLIENT_ACCEPT = "multipart/mixed,application/expo+json,application/json";
  private static final String[] ACCEPTS = {CLIENT_ACCEPT, CLIENT_ACCEPT, "application/json", "application/expo+json", "*/*", "multipart/*;q=0.5, application/json"};
  private static final String[] EXPO_HEADERS = {
    "accept", "expo-platform", "expo-protocol-version", "expo-runtime-version", "expo-channel-name", "eas-client-id",
    "expo-current-update-id", "expo-embedded-update-id", "expo-recent-failed-update-ids", "expo-expect-signature",
    "expo-extra-params", "expo-fatal-error", "expo-app-id", "host"
  };
  private static final String[] SF_PIECES = {
    "sig", "keyid", "alg", "=", "\"", "\"main\"", "\"rsa-v1_5-sha256\"", ",", ", ", ";", ";q=", "(", ")", "( \"a\" \"b\" )",
    ":", ":AAAA:", ":not base64!:", "?1", "?0", "?", "*", "1", "-1", "1.5", "999999999999999999999", "1e10", "\\", "\\\"",
    " ", "\t", "a", "hello=\"world\"", "x=", "=y", "\u00e9", "%22", "\"unterminated", "key=\"v\";p=1", "@", "#", "[]", "{}",
    "00000000-0000-4000-8000-000000000000", "\"00000000-0000-4000-8000-000000000000\"", "\"AB\"", "<>", "'", "\"\"\"\""
  };
  private static final String[] PROTOCOLS = {"", "0", "1", "2", "-1", "1.0", "01", " 1", "1 ", "one", "99999999999999999999", "\u00b9", "1,1", "0x1"};
  private static final String[] METHODS = {"POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE", "get", "GETS", "PROPFIND", "X"};
  private static final String[] VERSIONS = {"HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/9.9", "HTTPS/1.1", "http/1.1", "HTTP/1.1x", ""};
  private static final String[] QUERY_PARAMS = {"platform", "runtime-version", "channel-name", "app", "x", "", "PLATFORM"};
  private static final String[] ESCAPES = {"%zz", "%", "%e9", "%C0%AF", "%00", "%2F", "%2e%2e", "%FF%FE", "%E0%A4%A", "%ED%A0%80", "+", "%25", "%u0041", "&&", "==", ";", "%0d%0a", "ios", "1.0.0", "main"};

  FuzzInputs(long seed, List<String> knownIds) {
    this.seed = seed;
    this.knownIds = List.copyOf(knownIds);
  }

  Input input(long index) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
    Request q = base(r);
    StringBuilder kinds = new StringBuilder();
    int roll = r.nextInt(100);
    if (roll < 10) {
      framing(r, q, kinds); // alone on its connection
    } else {
      int n = 1 + r.nextInt(3);
      for (int i = 0; i < n; i++) {
        mutate(r, q, kinds);
      }
    }
    byte[] asks = ascii("expo-expect-signature:");
    boolean asksSignature = q.raw == null && q.headers.stream().anyMatch(h -> startsWithIgnoreCase(h, asks));
    return new Input(index, q.bytes(), q.alone, q.head, kinds.toString(), asksSignature, q.decided ? q.device : null);
  }

  /**
   * Whether a mutation of header {@code name} leaves the device's answer as its base request decides it: not for a
   * deciding header, nor for {@code expo-extra-params} once a line of it names the channel override.
   */
  private static void touched(Request q, String name) {
    if (DECIDING.contains(name) || (name.equals("expo-extra-params") && q.mentions(name, CHANNEL_PARAM))) {
      q.decided = false;
    }
  }

  /** A request being built: a request line and header lines, each a byte string without CRLF. */
  private static final class Request {
    String method = "GET";
    byte[] target;
    String version = "HTTP/1.1";
    final List<byte[]> headers = new ArrayList<>();
    byte[] body;
    boolean alone;
    boolean head;
    boolean bareLf;
    byte[] raw;
    /** The device of the base request, and whether the mutations left what decides its answer alone. */
    Device device;
    boolean decided = true;

    void set(String name, byte[] value) {
      remove(name);
      headers.add(line(name, value));
    }

    /** Whether a line of header {@code name} holds {@code text}. */
    boolean mentions(String name, String text) {
      byte[] prefix = (name + ":").getBytes(StandardCharsets.ISO_8859_1);
      for (byte[] h : headers) {
        if (startsWithIgnoreCase(h, prefix) && new String(h, StandardCharsets.ISO_8859_1).contains(text)) {
          return true;
        }
      }
      return false;
    }

    void remove(String name) {
      byte[] prefix = (name + ":").getBytes(StandardCharsets.ISO_8859_1);
      headers.removeIf(h -> startsWithIgnoreCase(h, prefix));
    }

    byte[] bytes() {
      if (raw != null) {
        return raw;
      }
      ByteArrayOutputStream b = new ByteArrayOutputStream(512);
      byte[] eol = bareLf ? new byte[] {'\n'} : new byte[] {'\r', '\n'};
      b.writeBytes(method.getBytes(StandardCharsets.ISO_8859_1));
      b.write(' ');
      b.writeBytes(target);
      if (!version.isEmpty()) {
        b.write(' ');
        b.writeBytes(version.getBytes(StandardCharsets.ISO_8859_1));
      }
      b.writeBytes(eol);
      for (byte[] h : headers) {
        b.writeBytes(h);
        b.writeBytes(eol);
      }
      b.writeBytes(eol);
      if (body != null) {
        b.writeBytes(body);
      }
      return b.toByteArray();
    }
  }

  private static byte[] line(String name, byte[] value) {
    byte[] n = (name + ": ").getBytes(StandardCharsets.ISO_8859_1);
    byte[] out = new byte[n.length + value.length];
    System.arraycopy(n, 0, out, 0, n.length);
    System.arraycopy(value, 0, out, n.length, value.length);
    return out;
  }

  private static boolean startsWithIgnoreCase(byte[] h, byte[] prefix) {
    if (h.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (Character.toLowerCase((char) (h[i] & 0xff)) != Character.toLowerCase((char) (prefix[i] & 0xff))) {
        return false;
      }
    }
    return true;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static <T> T pick(SplittableRandom r, T[] a) {
    return a[r.nextInt(a.length)];
  }

  private String id(SplittableRandom r) {
    int k = r.nextInt(4);
    if (k < 2 && !knownIds.isEmpty()) {
      return knownIds.get(r.nextInt(knownIds.size()));
    }
    return new UUID(r.nextLong(), r.nextLong()).toString();
  }

  private Request base(SplittableRandom r) {
    Request q = new Request();
    String app = pick(r, APPS);
    boolean byHeader = r.nextInt(8) == 0;
    q.target = ascii(byHeader ? "/manifest" : "/apps/" + app + "/manifest");
    q.set("host", ascii("127.0.0.1"));
    if (byHeader) {
      q.set("expo-app-id", ascii(app));
    }
    q.set("accept", ascii(pick(r, ACCEPTS)));
    String platform = r.nextBoolean() ? "ios" : "android";
    q.set("expo-platform", ascii(platform));
    String protocol = r.nextInt(10) == 0 ? "0" : "1";
    q.set("expo-protocol-version", ascii(protocol));
    String runtime = r.nextInt(10) == 0 ? "2.0.0" : "1.0.0";
    q.set("expo-runtime-version", ascii(runtime));
    String channel = pick(r, CHANNELS);
    q.set("expo-channel-name", ascii(channel));
    String client = new UUID(r.nextLong(), r.nextLong()).toString();
    q.set("eas-client-id", ascii(r.nextBoolean() ? client : client.toUpperCase(java.util.Locale.ROOT)));
    String current = null;
    String embedded = null;
    List<String> failed = List.of();
    if (r.nextInt(3) > 0) {
      current = id(r);
      q.set("expo-current-update-id", ascii(current));
    }
    if (r.nextBoolean()) {
      embedded = id(r);
      q.set("expo-embedded-update-id", ascii(embedded));
    }
    if (r.nextInt(4) == 0) {
      failed = List.of(id(r), id(r));
      q.set("expo-recent-failed-update-ids", ascii("\"" + failed.get(0) + "\", \"" + failed.get(1) + "\""));
    }
    if (r.nextBoolean()) {
      q.set("expo-expect-signature", ascii("sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\""));
    }
    if (r.nextInt(4) == 0) {
      q.set("expo-extra-params", ascii("hello=\"world\", what=\"123\""));
    }
    q.device = new Device(app, platform, protocol, runtime, channel, client, current, embedded, failed);
    return q;
  }

  /** Random bytes without CR and LF (so the message framing stays intact); sometimes other controls. */
  private static byte[] randomBytes(SplittableRandom r, int n) {
    byte[] b = new byte[n];
    boolean controls = r.nextInt(4) == 0;
    for (int i = 0; i < n; i++) {
      int c;
      do {
        int k = r.nextInt(10);
        c = k < 5 ? 0x20 + r.nextInt(0x5f) : k < 9 ? 0x80 + r.nextInt(0x80) : controls ? r.nextInt(0x20) : 0x09;
      } while (c == '\r' || c == '\n');
      b[i] = (byte) c;
    }
    return b;
  }

  private static final byte[][] BAD_UTF8 = {
    {(byte) 0xC3, 0x28}, {(byte) 0xFF}, {(byte) 0xFE, (byte) 0xFF}, {(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0x80}, {(byte) 0xBF},
    {(byte) 0xE2, (byte) 0x82}, {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80}, {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}
  };

  private static byte[] invalidUtf8(SplittableRandom r, String around) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] a = ascii(around);
    int cut = r.nextInt(a.length + 1);
    b.write(a, 0, cut);
    int n = 1 + r.nextInt(4);
    for (int i = 0; i < n; i++) {
      b.writeBytes(BAD_UTF8[r.nextInt(BAD_UTF8.length)]);
    }
    b.write(a, cut, a.length - cut);
    return b.toByteArray();
  }

  private static String structured(SplittableRandom r) {
    StringBuilder sb = new StringBuilder();
    int n = r.nextInt(20) == 0 ? 200 + r.nextInt(800) : 1 + r.nextInt(12);
    for (int i = 0; i < n; i++) {
      sb.append(pick(r, SF_PIECES));
    }
    return sb.toString();
  }

  private void mutate(SplittableRandom r, Request q, StringBuilder kinds) {
    int k = r.nextInt(12);
    switch (k) {
      case 0: {
        String h = pick(r, EXPO_HEADERS);
        q.set(h, randomBytes(r, r.nextInt(200)));
        touched(q, h);
        kinds.append("random-bytes(").append(h).append(") ");
        break;
      }
      case 1: {
        String h = pick(r, EXPO_HEADERS);
        q.set(h, invalidUtf8(r, h.equals("eas-client-id") ? new UUID(r.nextLong(), r.nextLong()).toString() : "1.0.0"));
        touched(q, h);
        kinds.append("invalid-utf8(").append(h).append(") ");
        break;
      }
      case 2: {
        String h = pick(r, EXPO_HEADERS);
        // around the edge's 16 KiB header limit, and now and then far above it
        int[] sizes = {300, 1000, 4000, 300, 1000, 4000, 15000, 16300, 17000};
        int n = r.nextInt(40) == 0 ? 40000 : sizes[r.nextInt(sizes.length)];
        byte[] v = new byte[n];
        java.util.Arrays.fill(v, (byte) ('a' + r.nextInt(26)));
        q.set(h, v);
        touched(q, h);
        kinds.append("oversized(").append(h).append(',').append(n).append(") ");
        break;
      }
      case 3: {
        String h = pick(r, EXPO_HEADERS);
        int times = 2 + (r.nextInt(5) == 0 ? r.nextInt(200) : r.nextInt(4));
        for (int i = 0; i < times; i++) {
          q.headers.add(line(h, r.nextBoolean() ? ascii(pick(r, new String[] {"ios", "android", "1", "0", "1.0.0", "main", "beta", id(r)})) : randomBytes(r, r.nextInt(20))));
        }
        touched(q, h);
        kinds.append("repeated(").append(h).append('x').append(times).append(") ");
        break;
      }
      case 4: {
        int n = r.nextInt(20) == 0 ? 1000 + r.nextInt(2000) : 20 + r.nextInt(300);
        for (int i = 0; i < n; i++) {
          q.headers.add(ascii("x-f" + i + ": " + i));
        }
        kinds.append("header-count(").append(n).append(") ");
        break;
      }
      case 5:
      case 6: {
        String[] sf = {"expo-expect-signature", "expo-recent-failed-update-ids", "expo-extra-params"};
        String h = sf[r.nextInt(3)];
        q.set(h, ascii(structured(r)));
        touched(q, h);
        kinds.append("structured(").append(h).append(") ");
        break;
      }
      case 7: {
        StringBuilder qs = new StringBuilder("?");
        int n = 1 + r.nextInt(6);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            qs.append(r.nextBoolean() ? "&" : ";");
          }
          qs.append(pick(r, QUERY_PARAMS));
          if (r.nextInt(5) > 0) {
            qs.append('=');
          }
          int m = r.nextInt(4);
          for (int j = 0; j < m; j++) {
            qs.append(pick(r, ESCAPES));
          }
        }
        if (r.nextInt(20) == 0) {
          qs.append("&pad=").append("p".repeat(3000 + r.nextInt(2000)));
        }
        byte[] raw = r.nextInt(4) == 0 ? invalidUtf8(r, qs.toString()) : ascii(qs.toString());
        byte[] t = new byte[q.target.length + raw.length];
        System.arraycopy(q.target, 0, t, 0, q.target.length);
        System.arraycopy(raw, 0, t, q.target.length, raw.length);
        q.target = noSpaces(t);
        if (r.nextBoolean()) {
          q.remove("expo-platform");
          q.remove("expo-runtime-version");
          q.remove("expo-channel-name");
        }
        q.decided = false; // the query names fallbacks for the platform, runtime version, channel and app
        kinds.append("query ");
        break;
      }
      case 8: {
        String[] segs = {"%2e%2e", "..", "%2F", "a%2Fb", "%00", "%zz", "fuzz%20", "%66uzz", "FUZZ", "", "%", "\u00e9", "%C0%AF", "fuzz;x=1", "fuzz%3Bx", "a".repeat(5000)};
        String s = pick(r, segs);
        q.target = noSpaces(r.nextInt(3) == 0 ? invalidUtf8(r, "/apps/" + s + "/manifest") : ascii("/apps/" + s + "/manifest"));
        q.decided = false;
        kinds.append("path ");
        break;
      }
      case 9: {
        byte[] name = randomBytes(r, 1 + r.nextInt(30));
        for (int i = 0; i < name.length; i++) {
          if (name[i] == ':') {
            name[i] = 'c';
          }
        }
        byte[] v = ascii("v");
        byte[] l = new byte[name.length + 2 + v.length];
        System.arraycopy(name, 0, l, 0, name.length);
        l[name.length] = ':';
        l[name.length + 1] = ' ';
        System.arraycopy(v, 0, l, name.length + 2, v.length);
        q.headers.add(l);
        if (name[0] == ' ' || name[0] == '\t') {
          q.decided = false; // a line starting with white space continues the header before it (obs-fold)
        }
        kinds.append("header-name ");
        break;
      }
      case 10:
        q.set("expo-protocol-version", ascii(pick(r, PROTOCOLS)));
        q.decided = false;
        kinds.append("protocol-version ");
        break;
      default: {
        String[] accepts = {"", "text/html", "application/json;q=0", "multipart/mixed;q=abc", "*/*;q=1e309", "*/*;q=-0",
          "multipart/mixed;q=0, application/json;q=0.001", ",,,,", ";;;;", "/", "*/*".repeat(2000), "application/*", "MULTIPART/MIXED",
          "multipart/mixed;boundary=\"x\"", "application/expo+json;q=0.5,application/json;q=0.5"};
        q.set("accept", ascii(pick(r, accepts)));
        kinds.append("accept ");
      }
    }
  }

  private static byte[] noSpaces(byte[] t) {
    for (int i = 0; i < t.length; i++) {
      if (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n') {
        t[i] = '_';
      }
    }
    return t;
  }

  private void framing(SplittableRandom r, Request q, StringBuilder kinds) {
    q.alone = true;
    int k = r.nextInt(8);
    switch (k) {
      case 0: {
        q.method = pick(r, METHODS);
        q.head = q.method.equals("HEAD");
        if (r.nextBoolean()) {
          q.body = randomBytes(r, r.nextInt(3000));
          q.set("content-length", ascii(Integer.toString(q.body.length)));
        }
        kinds.append("method(").append(q.method).append(") ");
        break;
      }
      case 1:
        q.version = pick(r, VERSIONS);
        kinds.append("version(").append(q.version).append(") ");
        break;
      case 2: {
        String[] cls = {"-1", "abc", "1e3", "99999999999999999999", "0, 5", " 5", "5", "0x10", ""};
        String cl = pick(r, cls);
        q.set("content-length", ascii(cl));
        if (r.nextBoolean()) {
          q.headers.add(ascii("content-length: 3"));
        }
        q.body = r.nextBoolean() ? ascii("abcde") : null;
        kinds.append("content-length(").append(cl).append(") ");
        break;
      }
      case 3: {
        String[] tes = {"chunked", "gzip, chunked", "chunked, gzip", "identity", "xchunked", "chunked\t", "CHUNKED"};
        String te = pick(r, tes);
        q.set("transfer-encoding", ascii(te));
        if (r.nextBoolean()) {
          q.headers.add(ascii("content-length: 5"));
        }
        String[] bodies = {"0\r\n\r\n", "5\r\nhello\r\n0\r\n\r\n", "zz\r\n", "ffffffffffffffff\r\n", "5;ext=1\r\nhello\r\n0\r\nx-t: 1\r\n\r\n", ""};
        q.body = ascii(pick(r, bodies));
        kinds.append("transfer-encoding(").append(te).append(") ");
        break;
      }
      case 4:
        q.bareLf = true;
        kinds.append("bare-lf ");
        break;
      case 5: {
        String[] lines = {" folded-continuation", "\tfolded", "no-colon-line", ": empty-name", "x-y : space-before-colon", "x\u0000y: nul", "\u00ff\u00fe: latin"};
        q.headers.add(r.nextInt(2) == 0 ? 1 : q.headers.size(), lines[r.nextInt(lines.length)].getBytes(StandardCharsets.ISO_8859_1));
        q.decided = false; // a folded line continues the header before it
        kinds.append("bad-line ");
        break;
      }
      case 6: {
        byte[] g = new byte[1 + r.nextInt(2000)];
        for (int i = 0; i < g.length; i++) {
          g[i] = (byte) r.nextInt(256);
        }
        byte[] raw = new byte[g.length + 4];
        System.arraycopy(g, 0, raw, 0, g.length);
        raw[g.length] = '\r';
        raw[g.length + 1] = '\n';
        raw[g.length + 2] = '\r';
        raw[g.length + 3] = '\n';
        q.raw = raw;
        q.decided = false;
        kinds.append("garbage ");
        break;
      }
      default: {
        // header values with CR or LF inside: a split or smuggled header
        String[] injections = {"ios\r\nexpo-platform: android", "1.0.0\rX", "main\nexpo-channel-name: beta", "x\r\n\r\nGET /apps/fuzz/manifest HTTP/1.1"};
        q.set(pick(r, new String[] {"expo-platform", "expo-runtime-version", "expo-channel-name"}), ascii(pick(r, injections)));
        q.decided = false;
        kinds.append("crlf-injection ");
      }
    }
  }
}
