package dev.updraft.controlplane.config;

import dev.updraft.common.ConfigException;
import dev.updraft.controlplane.signing.KeyMaterialException;
import dev.updraft.controlplane.signing.PemKeys;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMParser;

/**
 * The control port's TLS material ({@code --tls-cert}, {@code --tls-key}), read and checked: each file
 * exists and is readable, the certificate file holds one or more certificates (the server's first), the
 * key is an unencrypted private key, and the key belongs to the first certificate (a test signature made
 * with it verifies with the certificate's public key). Failures are {@link ConfigException}s naming the
 * flag, the file and the problem. Stateless.
 *
 * @param certificatePem the certificate file's PEM blocks, re-encoded (server certificate first)
 * @param keyPem the private key as PKCS#8 PEM (what Vert.x reads whatever the file's format)
 */
public record TlsFiles(String certificatePem, String keyPem) {

  /** Reads and checks both files (blocking file reads). */
  public static TlsFiles load(Path cert, Path key) {
    String certText = read("tls-cert", cert);
    String keyText = read("tls-key", key);
    List<X509Certificate> chain = certificates(cert, certText);
    PrivateKey pk;
    try {
      pk = PemKeys.parsePrivateKey(keyText);
    } catch (KeyMaterialException e) {
      throw new ConfigException("--tls-key (UPDRAFT_TLS_KEY) file " + key + " is not a usable private key: " + e.getMessage());
    }
    if (!belongs(pk, chain.get(0))) {
      throw new ConfigException(
          "--tls-key (UPDRAFT_TLS_KEY) file " + key + " does not match the certificate in --tls-cert (UPDRAFT_TLS_CERT) file " + cert
              + " (subject " + chain.get(0).getSubjectX500Principal().getName() + "): give the key the certificate was issued for");
    }
    StringBuilder pem = new StringBuilder();
    for (X509Certificate c : chain) {
      pem.append(PemKeys.toPem(c));
    }
    return new TlsFiles(pem.toString(), PemKeys.toPkcs8Pem(pk));
  }

  private static String read(String flag, Path p) {
    String env = dev.updraft.common.Settings.envName(flag);
    if (!Files.exists(p)) {
      throw new ConfigException("--" + flag + " (" + env + ") file " + p + " does not exist");
    }
    if (!Files.isRegularFile(p)) {
      throw new ConfigException("--" + flag + " (" + env + ") " + p + " is not a regular file");
    }
    try {
      return Files.readString(p, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new ConfigException("--" + flag + " (" + env + ") file " + p + " cannot be read: " + e);
    }
  }

  private static List<X509Certificate> certificates(Path file, String text) {
    List<X509Certificate> out = new ArrayList<>();
    String prefix = "--tls-cert (UPDRAFT_TLS_CERT) file " + file;
    try (PEMParser p = new PEMParser(new StringReader(text))) {
      for (Object o = p.readObject(); o != null; o = p.readObject()) {
        if (!(o instanceof X509CertificateHolder)) {
          throw new ConfigException(
              prefix + " must hold PEM certificates only (BEGIN CERTIFICATE), found a " + o.getClass().getSimpleName()
                  + (out.isEmpty() ? "; is it the key file?" : ""));
        }
        out.add(new JcaX509CertificateConverter().getCertificate((X509CertificateHolder) o));
      }
    } catch (IOException | CertificateException | IllegalArgumentException e) {
      throw new ConfigException(prefix + " is not a readable PEM certificate: " + e.getMessage());
    }
    if (out.isEmpty()) {
      throw new ConfigException(prefix + " holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)");
    }
    return out;
  }

  private static boolean belongs(PrivateKey key, X509Certificate cert) {
    String alg =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC", "ECDSA" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default -> null;
        };
    if (alg == null) {
      throw new ConfigException("--tls-key (UPDRAFT_TLS_KEY) is a " + key.getAlgorithm() + " key; use an RSA, EC or Ed25519 key");
    }
    byte[] probe = new byte[32];
    new SecureRandom().nextBytes(probe);
    try {
      Signature s = Signature.getInstance(alg);
      s.initSign(key);
      s.update(probe);
      byte[] sig = s.sign();
      Signature v = Signature.getInstance(alg);
      v.initVerify(cert.getPublicKey());
      v.update(probe);
      return v.verify(sig);
    } catch (GeneralSecurityException e) {
      return false; // e.g. an EC key against an RSA certificate
    }
  }

  @Override
  public String toString() {
    return "TlsFiles{key=<redacted>}";
  }
}
