package dev.updraft.load.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.load.fleet.Expectations;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Validates one manifest response as an expo-updates client would (protocol.md §2, §3): status,
 * protocol header, cache-control, multipart framing, manifest or directive, signature when requested.
 * It does not judge whether the update is the right one for the device: {@link Expectations} does.
 *
 * <p>Not thread-safe: each lane owns one. A fleet receives the same few bodies over and over, so it remembers, by
 * exact byte equality, the last multipart bodies it parsed (with their content type), the manifests it parsed and
 * the (signature, signed bytes) pairs it verified: a response whose signed bytes equal, byte for byte, those a
 * signature was verified over is verified; any other (one byte differs) goes through RSA again. Every response is
 * still checked in full; only the repeated work on identical bytes is skipped.
 */
public final class ResponseCheck {
  /** What the server answered, or why the answer is wrong. */
  public record Answer(Kind kind, String updateId, String createdAt, String runtimeVersion, String launchUrl,
      String launchHash, ErrorKind error, String detail) {
    public static Answer fail(ErrorKind e, String detail) {
      return new Answer(null, null, null, null, null, null, e, detail);
    }

    public static final Answer NO_UPDATE = new Answer(Kind.NO_UPDATE, null, null, null, null, null, null, null);

    public boolean ok() {
      return error == null;
    }
  }

  public enum Kind { MANIFEST, NO_UPDATE, ROLLBACK }

  /** Read access to response headers by case-insensitive name. */
  public interface Headers {
    public String get(String name);
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  static final Pattern UUID_RE = Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  static final Pattern CREATED_AT_RE = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
  private static final Pattern SIG_RE = Pattern.compile("(?:^|[,;]\\s*)sig=\"([A-Za-z0-9+/=]+)\"");

  private final PublicKey verifyKey;
  private final Map<ByteBuffer, Answer> manifestCache =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteBuffer, Answer> e) {
          return size() > 64;
        }
      };

  /** Signatures (base64, as in the header) verified over these exact bytes; the last {@value #REMEMBERED}. */
  private final Map<String, byte[]> verified = lru(REMEMBERED);
  /** Multipart bodies parsed (content type and exact bytes), with the parse of a private copy. */
  private final Map<BodyKey, Multipart.Result> parsed = lru(REMEMBERED);
  /** Reused verifier (this check is not thread-safe anyway): {@code Signature.getInstance} per response costs. */
  private Signature verifier;

  static final int REMEMBERED = 64;

  /** @param verifyKey nullable: check signatures for presence and syntax only */
  public ResponseCheck(PublicKey verifyKey) {
    this.verifyKey = verifyKey;
  }

  private static <K, V> Map<K, V> lru(int max) {
    return new LinkedHashMap<>(max, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> e) {
        return size() > max;
      }
    };
  }

  /** A body by content type and exact bytes; equal only when both are. */
  private static final class BodyKey {
    final String contentType;
    final byte[] bytes;
    final int hash;

    BodyKey(String contentType, byte[] bytes) {
      this.contentType = contentType;
      this.bytes = bytes;
      this.hash = 31 * contentType.hashCode() + Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BodyKey k && k.hash == hash && k.contentType.equals(contentType) && Arrays.equals(k.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** The strict parse of {@code body}, done once per distinct (content type, bytes) among the last remembered. */
  private Multipart.Result parse(String ct, byte[] body) {
    BodyKey key = new BodyKey(ct, body);
    Multipart.Result r = parsed.get(key);
    if (r == null) {
      byte[] copy = body.clone(); // the parts point into the bytes parsed: a copy nobody else holds
      r = Multipart.parse(ct, copy);
      parsed.put(new BodyKey(ct, copy), r);
    }
    return r;
  }

  public Answer check(int status, Headers h, byte[] body, String runtimeVersion, boolean signatureRequested) {
    if (status != 200 && status != 204) {
      return Answer.fail(status >= 500 ? ErrorKind.STATUS_5XX : status >= 400 ? ErrorKind.STATUS_4XX : ErrorKind.STATUS_OTHER,
          "status=" + status);
    }
    String proto = h.get("expo-protocol-version");
    if (proto == null || !proto.trim().equals("1")) {
      return Answer.fail(ErrorKind.PROTOCOL_HEADER, "expo-protocol-version=" + proto);
    }
    if (status == 204) {
      return Answer.NO_UPDATE;
    }
    String ct = h.get("content-type");
    if (ct != null && ct.toLowerCase(Locale.ROOT).startsWith("multipart/mixed")) {
      Multipart.Result mp = parse(ct, body);
      if (!mp.ok()) {
        return Answer.fail(ErrorKind.MULTIPART, mp.error());
      }
      Multipart.Part manifest = mp.part("manifest");
      Multipart.Part directive = mp.part("directive");
      if (manifest != null && directive != null) {
        return Answer.fail(ErrorKind.MANIFEST_AND_DIRECTIVE, "parts=" + mp.parts().size());
      }
      if (manifest == null && directive == null) {
        return Answer.NO_UPDATE;
      }
      if (manifest != null) {
        Answer cc = cacheControl(h);
        if (cc != null) {
          return cc;
        }
      }
      Multipart.Part p = manifest != null ? manifest : directive;
      if (signatureRequested) {
        Answer s = signature(p.header("expo-signature"), p.source(), p.from(), p.to() - p.from());
        if (s != null) {
          return s;
        }
      }
      return manifest != null
          ? manifest(p.source(), p.from(), p.to() - p.from(), runtimeVersion)
          : cachedDirective(p.source(), p.from(), p.to() - p.from());
    }
    if (ct != null && (ct.startsWith("application/json") || ct.startsWith("application/expo+json"))) {
      Answer cc = cacheControl(h);
      if (cc != null) {
        return cc;
      }
      if (signatureRequested) {
        Answer s = signature(h.get("expo-signature"), body, 0, body.length);
        if (s != null) {
          return s;
        }
      }
      return manifest(body, 0, body.length, runtimeVersion);
    }
    return Answer.fail(ErrorKind.CONTENT_TYPE, "content-type=" + ct);
  }

  private static Answer cacheControl(Headers h) {
    String cc = h.get("cache-control");
    if (cc == null) {
      return null;
    }
    String l = cc.toLowerCase(Locale.ROOT);
    if (l.contains("public") || (l.contains("max-age=") && !l.contains("max-age=0") && !l.contains("no-store"))) {
      return Answer.fail(ErrorKind.CACHE_CONTROL, "cache-control=" + cc);
    }
    return null;
  }

  private Answer signature(String header, byte[] src, int off, int len) {
    if (header == null) {
      return Answer.fail(ErrorKind.SIGNATURE_MISSING, "no expo-signature");
    }
    java.util.regex.Matcher m = SIG_RE.matcher(header);
    if (!m.find()) {
      return Answer.fail(ErrorKind.SIGNATURE_MALFORMED, "expo-signature=" + header);
    }
    if (verifyKey == null) {
      return null;
    }
    String encoded = m.group(1);
    byte[] known = verified.get(encoded);
    if (known != null && Arrays.equals(known, 0, known.length, src, off, off + len)) {
      return null; // this signature was verified over exactly these bytes
    }
    try {
      byte[] sig = Base64.getDecoder().decode(encoded);
      if (verifier == null) {
        verifier = Signature.getInstance("SHA256withRSA");
      }
      verifier.initVerify(verifyKey);
      verifier.update(src, off, len);
      if (!verifier.verify(sig)) {
        return Answer.fail(ErrorKind.SIGNATURE_INVALID, "signature does not verify");
      }
      verified.put(encoded, Arrays.copyOfRange(src, off, off + len));
      return null;
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      return Answer.fail(ErrorKind.SIGNATURE_MALFORMED, e.getMessage());
    }
  }

  private Answer manifest(byte[] src, int off, int len, String runtimeVersion) {
    ByteBuffer key = ByteBuffer.wrap(src, off, len).slice();
    Answer cached = manifestCache.get(key);
    if (cached == null) {
      byte[] copy = new byte[len];
      System.arraycopy(src, off, copy, 0, len);
      cached = parseManifest(copy);
      manifestCache.put(ByteBuffer.wrap(copy), cached);
    }
    if (cached.ok()) {
      // the runtime check is per request; the parse is shared
      String rv = cached.runtimeVersion();
      if (!rv.equals(runtimeVersion)) {
        return Answer.fail(ErrorKind.RUNTIME_MISMATCH, "manifest runtimeVersion=" + rv + " request=" + runtimeVersion);
      }
    }
    return cached;
  }

  private Answer parseManifest(byte[] body) {
    JsonNode m;
    try {
      m = JSON.readTree(body);
    } catch (IOException e) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "not JSON: " + e.getMessage());
    }
    if (m == null || !m.isObject()) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "not a JSON object");
    }
    String id = text(m, "id");
    if (id == null || !UUID_RE.matcher(id).matches()) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "id=" + id);
    }
    String createdAt = text(m, "createdAt");
    if (createdAt == null || !CREATED_AT_RE.matcher(createdAt).matches()) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "createdAt=" + createdAt + " id=" + id);
    }
    String rv = text(m, "runtimeVersion");
    if (rv == null) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "no runtimeVersion id=" + id);
    }
    JsonNode la = m.get("launchAsset");
    if (la == null || !la.isObject() || text(la, "key") == null || text(la, "url") == null) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "launchAsset needs key and url id=" + id);
    }
    String hash = text(la, "hash");
    if (hash != null && (hash.indexOf('=') >= 0 || hash.indexOf('+') >= 0 || hash.indexOf('/') >= 0)) {
      return Answer.fail(ErrorKind.MANIFEST_INVALID, "launchAsset.hash is not base64url: " + hash);
    }
    JsonNode assets = m.get("assets");
    if (assets != null) {
      if (!assets.isArray()) {
        return Answer.fail(ErrorKind.MANIFEST_INVALID, "assets is not an array id=" + id);
      }
      for (JsonNode a : assets) {
        String ext = text(a, "fileExtension");
        if (text(a, "key") == null || text(a, "url") == null || ext == null || !ext.startsWith(".")) {
          return Answer.fail(ErrorKind.MANIFEST_INVALID, "asset needs key, url and fileExtension with a dot id=" + id);
        }
      }
    }
    return new Answer(Kind.MANIFEST, id.toLowerCase(Locale.ROOT), createdAt, rv, text(la, "url"), hash, null, null);
  }

  private final Map<ByteBuffer, Answer> directiveCache =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteBuffer, Answer> e) {
          return size() > 16;
        }
      };

  /** Directive bodies repeat even more than manifests (every up-to-date device gets the same bytes). */
  private Answer cachedDirective(byte[] src, int off, int len) {
    ByteBuffer key = ByteBuffer.wrap(src, off, len).slice();
    Answer a = directiveCache.get(key);
    if (a == null) {
      byte[] copy = new byte[len];
      System.arraycopy(src, off, copy, 0, len);
      a = directive(copy, 0, len);
      directiveCache.put(ByteBuffer.wrap(copy), a);
    }
    return a;
  }

  private static Answer directive(byte[] src, int off, int len) {
    JsonNode d;
    try {
      d = JSON.readTree(new String(src, off, len, StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Answer.fail(ErrorKind.DIRECTIVE_INVALID, "not JSON: " + e.getMessage());
    }
    String type = d == null ? null : text(d, "type");
    if (type == null) {
      return Answer.fail(ErrorKind.DIRECTIVE_INVALID, "directive without a string type");
    }
    switch (type) {
      case "noUpdateAvailable":
        return Answer.NO_UPDATE;
      case "rollBackToEmbedded":
        JsonNode params = d.get("parameters");
        String ct = params == null ? null : text(params, "commitTime");
        if (ct == null) {
          return Answer.fail(ErrorKind.DIRECTIVE_INVALID, "rollBackToEmbedded without a string parameters.commitTime");
        }
        return new Answer(Kind.ROLLBACK, null, ct, null, null, null, null, null);
      default:
        return Answer.fail(ErrorKind.UNKNOWN_DIRECTIVE, "type=" + type);
    }
  }

  private static String text(JsonNode n, String f) {
    JsonNode v = n.get(f);
    return v == null || !v.isTextual() ? null : v.asText();
  }

  /** The base64url SHA-256 (no padding) of {@code b}: a manifest asset's {@code hash}. */
  public static String sha256Base64Url(byte[] b) {
    try {
      return Base64.getUrlEncoder().withoutPadding().encodeToString(java.security.MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from the JDK", e);
    }
  }
}
