package dev.updraft.systemtests.security;

import dev.updraft.controlplane.signing.KeyMaterialException;
import dev.updraft.controlplane.signing.PemKeys;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The forms in which an RSA private key could leak, as strings to search text for: the base64 of its DER
 * as PKCS#1 and PKCS#8 (whole, base64url, and each 64-character line of a PEM body), the DER in hex and
 * as raw bytes, and the private exponent, the primes and the CRT values in decimal, hex (both cases),
 * base64url (as a JWK has them) and raw big-endian bytes. Byte forms are ISO-8859-1 strings, so a source
 * read as ISO-8859-1 is searched byte for byte.
 */
final class KeyMaterial {
  private final String name;
  private final Map<String, String> patterns = new LinkedHashMap<>();
  private final byte[] pkcs1;

  private KeyMaterial(String name, RSAPrivateCrtKey key) {
    this.name = name;
    byte[] pkcs8 = key.getEncoded();
    pkcs1 = pkcs1Of(pkcs8);
    der("PKCS#8", pkcs8);
    der("PKCS#1", pkcs1);
    number("private exponent", key.getPrivateExponent());
    number("prime p", key.getPrimeP());
    number("prime q", key.getPrimeQ());
    number("exponent dp", key.getPrimeExponentP());
    number("exponent dq", key.getPrimeExponentQ());
    number("coefficient", key.getCrtCoefficient());
  }

  /** The key of a PEM (PKCS#1 or PKCS#8). */
  static KeyMaterial ofPem(String name, String pem) throws KeyMaterialException {
    return new KeyMaterial(name, (RSAPrivateCrtKey) PemKeys.parsePrivateKey(pem));
  }

  String name() {
    return name;
  }

  byte[] pkcs1() {
    return pkcs1.clone();
  }

  int patternCount() {
    return patterns.size();
  }

  /** The names of the forms of this key found in {@code text}. */
  List<String> foundIn(String text) {
    List<String> found = new ArrayList<>();
    patterns.forEach((what, p) -> {
      if (text.contains(p)) {
        found.add(name + " " + what);
      }
    });
    return found;
  }

  /** Each full 64-character line of the PEM body of a DER (what any PEM of it contains, wrapped or not). */
  static List<String> pemLines(byte[] der) {
    String b64 = Base64.getEncoder().encodeToString(der);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i + 64 <= b64.length(); i += 64) {
      lines.add(b64.substring(i, i + 64));
    }
    return lines;
  }

  static List<String> pemLines(X509Certificate cert) {
    try {
      return pemLines(cert.getEncoded());
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  private void der(String form, byte[] der) {
    String b64 = Base64.getEncoder().encodeToString(der);
    patterns.put(form + " DER base64", b64);
    patterns.put(form + " DER base64url", Base64.getUrlEncoder().withoutPadding().encodeToString(der));
    patterns.put(form + " DER hex", HexFormat.of().formatHex(der));
    patterns.put(form + " DER raw bytes", new String(der, StandardCharsets.ISO_8859_1));
    List<String> lines = pemLines(der);
    for (int i = 0; i < lines.size(); i++) {
      patterns.put(form + " PEM line " + (i + 1), lines.get(i));
    }
  }

  private void number(String what, BigInteger n) {
    byte[] raw = n.toByteArray();
    if (raw[0] == 0) {
      raw = Arrays.copyOfRange(raw, 1, raw.length);
    }
    patterns.put(what + " decimal", n.toString());
    patterns.put(what + " hex", n.toString(16));
    patterns.put(what + " HEX", n.toString(16).toUpperCase(Locale.ROOT));
    patterns.put(what + " base64url", Base64.getUrlEncoder().withoutPadding().encodeToString(raw));
    patterns.put(what + " base64", Base64.getEncoder().encodeToString(raw));
    patterns.put(what + " raw bytes", new String(raw, StandardCharsets.ISO_8859_1));
  }

  /**
   * The PKCS#1 {@code RSAPrivateKey} inside a PKCS#8 {@code PrivateKeyInfo}: the content of its last
   * element, an OCTET STRING (tag 4) after the version and the algorithm identifier.
   */
  private static byte[] pkcs1Of(byte[] pkcs8) {
    int[] pos = {0};
    header(pkcs8, pos, 0x30); // PrivateKeyInfo
    int len = header(pkcs8, pos, 0x02); // version
    pos[0] += len;
    len = header(pkcs8, pos, 0x30); // algorithm
    pos[0] += len;
    len = header(pkcs8, pos, 0x04); // privateKey
    return Arrays.copyOfRange(pkcs8, pos[0], pos[0] + len);
  }

  private static int header(byte[] der, int[] pos, int tag) {
    if ((der[pos[0]] & 0xff) != tag) {
      throw new IllegalStateException("not PKCS#8: tag " + der[pos[0]] + " at " + pos[0]);
    }
    pos[0]++;
    int first = der[pos[0]++] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int len = 0;
    for (int i = 0; i < (first & 0x7f); i++) {
      len = (len << 8) | (der[pos[0]++] & 0xff);
    }
    return len;
  }
}
