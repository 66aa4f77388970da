package dev.updraft.controlplane.signing;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * Reads the PEM files publishers have: a private key as PKCS#1 ({@code RSA PRIVATE KEY}, what
 * {@code npx expo-updates codesigning:generate} writes) or PKCS#8 ({@code PRIVATE KEY}), and an X.509
 * certificate. Thread-safe (stateless).
 */
public final class PemKeys {
  private PemKeys() {}

  /** The private key in {@code pem}; PKCS#1 and unencrypted PKCS#8 are accepted. */
  public static PrivateKey parsePrivateKey(String pem) throws KeyMaterialException {
    Object o = readSingle(pem, "private key");
    JcaPEMKeyConverter conv = new JcaPEMKeyConverter();
    try {
      if (o instanceof PEMKeyPair) {
        return conv.getKeyPair((PEMKeyPair) o).getPrivate();
      }
      if (o instanceof PrivateKeyInfo) {
        return conv.getPrivateKey((PrivateKeyInfo) o);
      }
    } catch (IOException e) {
      throw new KeyMaterialException("invalid-private-key", "the private key PEM cannot be decoded: " + e.getMessage());
    }
    if (o instanceof PEMEncryptedKeyPair || o instanceof PKCS8EncryptedPrivateKeyInfo) {
      throw new KeyMaterialException(
          "invalid-private-key",
          "the private key is encrypted; give it unencrypted (openssl rsa -in key.pem -out plain.pem); the server seals it in its key store");
    }
    throw new KeyMaterialException(
        "invalid-private-key",
        "expected a PEM private key (BEGIN RSA PRIVATE KEY or BEGIN PRIVATE KEY) but found " + describe(o));
  }

  /** The single certificate in {@code pem}. */
  public static X509Certificate parseCertificate(String pem) throws KeyMaterialException {
    Object o = readSingle(pem, "certificate");
    if (!(o instanceof X509CertificateHolder)) {
      throw new KeyMaterialException(
          "invalid-certificate", "expected a PEM certificate (BEGIN CERTIFICATE) but found " + describe(o));
    }
    try {
      return new JcaX509CertificateConverter().getCertificate((X509CertificateHolder) o);
    } catch (CertificateException e) {
      throw new KeyMaterialException("invalid-certificate", "the certificate cannot be decoded: " + e.getMessage());
    }
  }

  /**
   * The certificates in {@code pem}, in order (a chain: leaf first); at least one, every block a
   * certificate.
   */
  public static List<X509Certificate> parseCertificates(String pem) throws KeyMaterialException {
    if (pem == null || pem.isBlank()) {
      throw new KeyMaterialException("invalid-certificate", "the certificate chain PEM is empty");
    }
    List<X509Certificate> out = new ArrayList<>();
    try (PEMParser p = new PEMParser(new StringReader(pem))) {
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (!(o instanceof X509CertificateHolder)) {
          throw new KeyMaterialException("invalid-certificate",
              "block " + (out.size() + 1) + " of the certificate chain is not a certificate but " + describe(o));
        }
        out.add(new JcaX509CertificateConverter().getCertificate((X509CertificateHolder) o));
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new KeyMaterialException("invalid-certificate", "the certificate chain PEM cannot be read: " + e.getMessage());
    } catch (CertificateException e) {
      throw new KeyMaterialException("invalid-certificate", "a certificate of the chain cannot be decoded: " + e.getMessage());
    }
    if (out.isEmpty()) {
      throw new KeyMaterialException("invalid-certificate", "no PEM block found in the certificate chain (expected -----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  /** The key as a PKCS#8 PEM ({@code BEGIN PRIVATE KEY}). */
  public static String toPkcs8Pem(PrivateKey key) {
    StringWriter out = new StringWriter();
    try (PemWriter w = new PemWriter(out)) {
      w.writeObject(new JcaPKCS8Generator(key, null));
    } catch (IOException e) {
      throw new IllegalStateException("cannot write PKCS#8 PEM", e);
    }
    return out.toString();
  }

  /** The certificate re-encoded as PEM (normalised line breaks, nothing around it). */
  public static String toPem(X509Certificate cert) {
    StringWriter out = new StringWriter();
    try (PemWriter w = new PemWriter(out)) {
      w.writeObject(new org.bouncycastle.util.io.pem.PemObject("CERTIFICATE", cert.getEncoded()));
    } catch (IOException | CertificateEncodingException e) {
      throw new IllegalStateException("cannot write certificate PEM", e);
    }
    return out.toString();
  }

  /** SHA-256 of the certificate's DER encoding, lower-case hex: the certificate's identity. */
  public static String sha256Hex(X509Certificate cert) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException("cannot hash certificate", e);
    }
  }

  private static Object readSingle(String pem, String what) throws KeyMaterialException {
    if (pem == null || pem.isBlank()) {
      throw new KeyMaterialException(
          "invalid-" + (what.equals("certificate") ? "certificate" : "private-key"), "the " + what + " PEM is empty");
    }
    String code = what.equals("certificate") ? "invalid-certificate" : "invalid-private-key";
    try (PEMParser p = new PEMParser(new StringReader(pem))) {
      Object first = p.readObject();
      if (first == null) {
        throw new KeyMaterialException(code, "no PEM block found in the " + what + " (expected -----BEGIN ...-----)");
      }
      Object second = p.readObject();
      if (second != null) {
        throw new KeyMaterialException(
            code, "the " + what + " PEM holds more than one block; give exactly one " + what);
      }
      return first;
    } catch (IOException | IllegalArgumentException e) {
      throw new KeyMaterialException(code, "the " + what + " PEM cannot be read: " + e.getMessage());
    }
  }

  private static String describe(Object o) {
    if (o instanceof X509CertificateHolder) {
      return "a certificate";
    }
    if (o instanceof PrivateKeyInfo || o instanceof PEMKeyPair) {
      return "a private key";
    }
    return "a " + o.getClass().getSimpleName();
  }
}
