package dev.updraft.edge;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The address bucket of a device request ({@code CheckIn.addressBucket}): the first 8 bytes, in hex, of an
 * HMAC-SHA256 over the request's network prefix (the /24 of an IPv4 address, the /48 of an IPv6 one; an
 * IPv4-mapped IPv6 address counts as its IPv4 address). The address itself is never kept. The rollout guard
 * counts at most a few failing devices per bucket, so requests from one network cannot forge a revert.
 *
 * <p>The key is {@code --address-bucket-key} (or {@code --address-bucket-key-file}), the same on every edge of a
 * deployment so that one network is one bucket whichever edge it reaches; without it each edge process draws a
 * random key (buckets then differ between edges and restarts). The address is the TCP peer's, or with
 * {@code --trust-forwarded-for} the last entry of {@code X-Forwarded-For} (the one the edge's own proxy appended)
 * when the request has one. Thread-safe (one {@link Mac} per thread).
 *
 * <p>On the manifest route's hot path (every device request's check-in): each thread remembers the buckets of the
 * last prefixes it hashed ({@link #MEMO_SLOTS}, a direct-mapped table keyed by the prefix, never the address), so a
 * network seen again costs a table look-up instead of an HMAC, and a canonical IPv4 literal (what the TCP peer gives)
 * is read by hand instead of through {@link InetAddress}; one request in {@link #REHASH_EVERY} takes the whole way
 * anyway (why: {@link #of}). Same buckets either way.
 */
final class AddressBuckets {
  private static final HexFormat HEX = HexFormat.of();
  private final byte[] key;
  private final boolean trustForwardedFor;
  /** Buckets each thread remembers, by prefix (a power of two). */
  static final int MEMO_SLOTS = 1024;
  /** One look-up in this many (a power of two) takes the whole way: InetAddress and HMAC (same bucket). */
  private static final int REHASH_EVERY = 1024;
  private final ThreadLocal<PerThread> threads;

  /** {@code key} null or empty: a random key for this process. */
  AddressBuckets(byte[] key, boolean trustForwardedFor) {
    byte[] k = key;
    if (k == null || k.length == 0) {
      k = new byte[32];
      new SecureRandom().nextBytes(k);
    }
    this.key = k.clone();
    this.trustForwardedFor = trustForwardedFor;
    this.threads = ThreadLocal.withInitial(() -> new PerThread(mac()));
  }

  /**
   * Reads {@code --address-bucket-key} / {@code --address-bucket-key-file} (at least 16 characters; not both) and
   * {@code --trust-forwarded-for} (default false).
   *
   * @throws ConfigException naming the flag
   */
  static AddressBuckets from(Settings s) {
    String key = s.raw("address-bucket-key");
    Path file = s.path("address-bucket-key-file", null);
    if (key != null && file != null) {
      throw new ConfigException("give --address-bucket-key or --address-bucket-key-file, not both");
    }
    if (file != null) {
      try {
        key = Files.readString(file, StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new ConfigException("--address-bucket-key-file: cannot read " + file + ": " + e.getMessage());
      }
    }
    if (key != null && key.length() < 16) {
      throw new ConfigException("--address-bucket-key must be at least 16 characters: got " + key.length());
    }
    return new AddressBuckets(key == null ? null : key.getBytes(StandardCharsets.UTF_8), s.bool("trust-forwarded-for", false));
  }

  boolean trustsForwardedFor() {
    return trustForwardedFor;
  }

  /** The bucket of a request from {@code peer} with {@code forwardedFor} (nullable); null when neither names an address. */
  String of(SocketAddress peer, String forwardedFor) {
    PerThread t = threads.get();
    // one request in REHASH_EVERY takes the whole way (InetAddress, HMAC) although the short one would do: the
    // warm-up's requests all come from one IPv4 network, and a way it never took would be compiled as never
    // taken, then deoptimised under traffic by the first IPv6 peer or the first device of another network
    // (what the check-in lanes avoid too: CheckInEmitter)
    boolean fresh = (++t.lookups & (REHASH_EVERY - 1)) == 0;
    byte[] ip = null;
    if (trustForwardedFor && forwardedFor != null) {
      int comma = forwardedFor.lastIndexOf(',');
      ip = literal(forwardedFor.substring(comma + 1).trim());
    }
    if (ip == null && peer != null) {
      String host = peer.hostAddress();
      long v4 = fresh ? -1 : v4Prefix(host);
      if (v4 >= 0) {
        return bucket(t, v4, false);
      }
      ip = literal(host);
    }
    return ip == null ? null : bucket(t, key(ip), fresh);
  }

  /** The bucket of the raw address {@code ip} (4 or 16 bytes), hashed afresh. */
  String bucket(byte[] ip) {
    return bucket(threads.get(), key(ip), true);
  }

  /**
   * The prefix key of the raw address {@code ip}: the bytes the HMAC covers, the family's tag (4 or 6) first,
   * big-endian in the low 56 bits (4, then three bytes of an IPv4 address; 6, then six bytes of an IPv6 one).
   */
  private static long key(byte[] ip) {
    if (ip.length == 4) {
      return v4Key(ip[0], ip[1], ip[2]);
    } else if (isV4Mapped(ip)) {
      return v4Key(ip[12], ip[13], ip[14]);
    }
    long k = 6;
    for (int i = 0; i < 6; i++) {
      k = k << 8 | (ip[i] & 0xFF);
    }
    return k;
  }

  /** The bucket of prefix {@code key} ({@link #key}): remembered, unless {@code fresh} or not remembered, then hashed. */
  private String bucket(PerThread t, long key, boolean fresh) {
    int slot = (int) ((key * 0x9E3779B97F4A7C15L) >>> 54) & (MEMO_SLOTS - 1);
    String b = t.buckets[slot];
    if (!fresh && b != null && t.keys[slot] == key) {
      return b;
    }
    return hash(t, key, slot);
  }

  /** Hashes prefix {@code key} and remembers its bucket in {@code slot}. */
  private String hash(PerThread t, long key, int slot) {
    int n = key >>> 48 == 6 ? 7 : 4;
    byte[] prefix = new byte[n];
    for (int i = n - 1; i >= 0; i--) {
      prefix[i] = (byte) (key >>> (8 * (n - 1 - i)));
    }
    String b = HEX.formatHex(t.mac.doFinal(prefix), 0, 8);
    t.keys[slot] = key;
    t.buckets[slot] = b;
    return b;
  }

  private static long v4Key(byte a, byte b, byte c) {
    return 4L << 24 | (a & 0xFF) << 16 | (b & 0xFF) << 8 | (c & 0xFF);
  }

  /**
   * The prefix key of {@code s} when it is an IPv4 address in canonical dotted-quad form (four decimal numbers up to
   * 255, no leading zero, no zone, no brackets), else -1 (then {@link #literal} decides, as for any other text).
   */
  static long v4Prefix(String s) {
    if (s == null) {
      return -1;
    }
    int n = s.length();
    if (n < 7 || n > 15) {
      return -1;
    }
    long key = 4;
    int part = 0;
    int i = 0;
    while (true) {
      int start = i;
      int v = 0;
      while (i < n && i - start < 4) {
        char c = s.charAt(i);
        if (c < '0' || c > '9') {
          break;
        }
        v = v * 10 + (c - '0');
        i++;
      }
      int digits = i - start;
      if (digits == 0 || digits > 3 || v > 255 || (digits > 1 && s.charAt(start) == '0')) {
        return -1;
      }
      if (part < 3) {
        key = key << 8 | v;
      }
      part++;
      if (part == 4) {
        return i == n ? key : -1;
      }
      if (i >= n || s.charAt(i) != '.') {
        return -1;
      }
      i++;
    }
  }

  private static boolean isV4Mapped(byte[] ip) {
    for (int i = 0; i < 10; i++) {
      if (ip[i] != 0) {
        return false;
      }
    }
    return ip[10] == (byte) 0xFF && ip[11] == (byte) 0xFF;
  }

  /** The bytes of an IP literal, or null for anything else (never a name lookup). */
  static byte[] literal(String s) {
    if (s == null || s.isEmpty() || s.length() > 64) {
      return null;
    }
    String t = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
    int pct = t.indexOf('%');
    if (pct >= 0) {
      t = t.substring(0, pct);
    }
    boolean v6 = t.indexOf(':') >= 0;
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      boolean ok = v6 ? (Character.digit(c, 16) >= 0 || c == ':' || c == '.') : (c >= '0' && c <= '9') || c == '.';
      if (!ok) {
        return null;
      }
    }
    if (!v6 && t.chars().filter(c -> c == '.').count() != 3) {
      return null;
    }
    try {
      return InetAddress.getByName(t).getAddress(); // a literal: no lookup
    } catch (UnknownHostException e) {
      return null;
    }
  }

  /** One thread's {@link Mac} and remembered buckets (confined to that thread). */
  private static final class PerThread {
    final Mac mac;
    final long[] keys = new long[MEMO_SLOTS];
    final String[] buckets = new String[MEMO_SLOTS];
    int lookups;

    PerThread(Mac mac) {
      this.mac = mac;
    }
  }

  private Mac mac() {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(key, "HmacSHA256"));
      return m;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  @Override
  public String toString() {
    return "AddressBuckets[trustForwardedFor=" + trustForwardedFor + "]";
  }
}
