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
 */
final class AddressBuckets {
  private static final HexFormat HEX = HexFormat.of();
  private final byte[] key;
  private final boolean trustForwardedFor;
  private final ThreadLocal<Mac> macs;

  /** {@code key} null or empty: a random key for this process. */
  AddressBuckets(byte[] key, boolean trustForwardedFor) {
    byte[] k = key;
    if (k == null || k.length == 0) {
      k = new byte[32];
      new SecureRandom().nextBytes(k);
    }
    this.key = k.clone();
    this.trustForwardedFor = trustForwardedFor;
    this.macs = ThreadLocal.withInitial(this::mac);
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
    byte[] ip = null;
    if (trustForwardedFor && forwardedFor != null) {
      int comma = forwardedFor.lastIndexOf(',');
      ip = literal(forwardedFor.substring(comma + 1).trim());
    }
    if (ip == null && peer != null) {
      ip = literal(peer.hostAddress());
    }
    return ip == null ? null : bucket(ip);
  }

  /** The bucket of the raw address {@code ip} (4 or 16 bytes). */
  String bucket(byte[] ip) {
    byte[] prefix;
    if (ip.length == 4) {
      prefix = new byte[] {4, ip[0], ip[1], ip[2]};
    } else if (isV4Mapped(ip)) {
      prefix = new byte[] {4, ip[12], ip[13], ip[14]};
    } else {
      prefix = new byte[] {6, ip[0], ip[1], ip[2], ip[3], ip[4], ip[5]};
    }
    byte[] h = macs.get().doFinal(prefix);
    return HEX.formatHex(h, 0, 8);
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
