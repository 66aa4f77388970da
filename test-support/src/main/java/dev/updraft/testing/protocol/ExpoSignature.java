package dev.updraft.testing.protocol;

import java.util.Base64;
import java.util.Map;
import java.util.regex.Pattern;
import org.greenbytes.http.sfv.Dictionary;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.ParseException;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

/**
 * An {@code expo-signature} value ({@code sig="<base64>", keyid="main", alg="rsa-v1_5-sha256"}) parsed
 * with an RFC 8941 parser and held to what both clients enforce:
 *
 * <ul>
 *   <li>it is an SF dictionary whose every member is an SF <em>string</em> (iOS casts the dictionary to
 *       {@code [String: String]}; an SF byte sequence {@code :…:} fails on Android);
 *   <li>{@code sig} is present and is standard, padded base64 ({@code +/=}): iOS
 *       {@code Data(base64Encoded:)} rejects base64url and Android's decoder skips {@code -_};
 *   <li>{@code alg}, when present, is {@code rsa-v1_5-sha256} (an unknown alg throws on both clients);
 *   <li>a missing {@code keyid} means {@code root}.
 * </ul>
 *
 * @param sig the base64 text of {@code sig} as sent
 * @param signature the decoded signature bytes
 * @param keyId {@code keyid}, {@code root} when absent
 * @param alg {@code alg}, null when absent
 */
public record ExpoSignature(String sig, byte[] signature, String keyId, String alg) {
  /** The only algorithm Expo clients know. */
  public static final String RSA_SHA256 = "rsa-v1_5-sha256";

  private static final Pattern STANDARD_BASE64 = Pattern.compile("[A-Za-z0-9+/]*={0,2}");

  /**
   * Parses and checks a header value.
   *
   * @throws IllegalArgumentException naming the rule the value breaks
   */
  public static ExpoSignature parse(String headerValue) {
    if (headerValue == null) {
      throw new IllegalArgumentException("no expo-signature value");
    }
    Map<String, ListElement<? extends Object>> members;
    try {
      Dictionary d = Parser.parseDictionary(headerValue);
      members = d.get();
    } catch (ParseException e) {
      throw new IllegalArgumentException("expo-signature is not an RFC 8941 dictionary: " + e.getMessage()
          + " value=" + headerValue, e);
    }
    for (Map.Entry<String, ListElement<? extends Object>> m : members.entrySet()) {
      if (!(m.getValue() instanceof StringItem)) {
        throw new IllegalArgumentException("expo-signature member " + m.getKey() + " is not an SF string but "
            + m.getValue().getClass().getSimpleName() + ": " + headerValue);
      }
    }
    ListElement<? extends Object> sigItem = members.get("sig");
    if (sigItem == null) {
      throw new IllegalArgumentException("expo-signature has no sig: " + headerValue);
    }
    String sig = ((StringItem) sigItem).get();
    if (sig.isEmpty() || sig.length() % 4 != 0 || !STANDARD_BASE64.matcher(sig).matches()) {
      throw new IllegalArgumentException(
          "sig is not standard padded base64 (A-Z a-z 0-9 + / with = padding): sig=" + sig);
    }
    byte[] bytes = Base64.getDecoder().decode(sig);
    ListElement<? extends Object> keyIdItem = members.get("keyid");
    String keyId = keyIdItem == null ? "root" : ((StringItem) keyIdItem).get();
    ListElement<? extends Object> algItem = members.get("alg");
    String alg = algItem == null ? null : ((StringItem) algItem).get();
    if (alg != null && !alg.equals(RSA_SHA256)) {
      throw new IllegalArgumentException("unknown alg=" + alg + " (clients know only " + RSA_SHA256 + ")");
    }
    return new ExpoSignature(sig, bytes, keyId, alg);
  }

  /** A copy of the decoded signature. */
  @Override
  public byte[] signature() {
    return signature.clone();
  }
}
