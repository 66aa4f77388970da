package dev.updraft.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Code-signing certificates made in the test (BouncyCastle): a self-signed one as
 * {@code expo-updates codesigning:generate} makes, and a CA → intermediate → leaf chain for chain mode
 * (the root embedded in the binary, the leaf signing, both critical extensions as Expo's generator marks
 * them). Keys are 2048-bit RSA. Thread-safe.
 */
public final class TestCertificates {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private TestCertificates() {}

  /** A certificate with its key pair. */
  public record Issued(X509Certificate certificate, KeyPair keys) {
    public String certificatePem() {
      return pem(certificate);
    }

    public String privateKeyPem() {
      return pem(keys.getPrivate());
    }

    public PrivateKey privateKey() {
      return keys.getPrivate();
    }
  }

  /** A root CA ({@code pathLen} intermediates below it), a CA under it, and a code-signing leaf under that. */
  public record Chain(Issued root, Issued intermediate, Issued leaf) {
    /** What the server sends in {@code certificate_chain}: leaf first, then the intermediate. */
    public String servedChainPem() {
      return leaf.certificatePem() + intermediate.certificatePem();
    }
  }

  /** A self-signed code-signing certificate valid for {@code validity} from now. */
  public static Issued selfSigned(String commonName, Duration validity) {
    KeyPair kp = rsa();
    Instant now = Instant.now();
    return new Issued(build(commonName, kp, commonName, kp.getPrivate(), now.minusSeconds(60), now.plus(validity), false, -1), kp);
  }

  /** A root CA → intermediate CA → leaf chain, every certificate valid for {@code validity} from now. */
  public static Chain chain(String name, Duration validity) {
    Instant now = Instant.now();
    Instant from = now.minusSeconds(60);
    Instant to = now.plus(validity);
    KeyPair rootKeys = rsa();
    X509Certificate root = build(name + " Root CA", rootKeys, name + " Root CA", rootKeys.getPrivate(), from, to, true, 1);
    KeyPair interKeys = rsa();
    X509Certificate inter = build(name + " Intermediate CA", interKeys, name + " Root CA", rootKeys.getPrivate(), from, to, true, 0);
    KeyPair leafKeys = rsa();
    X509Certificate leaf = build(name + " Leaf", leafKeys, name + " Intermediate CA", interKeys.getPrivate(), from, to, false, -1);
    return new Chain(new Issued(root, rootKeys), new Issued(inter, interKeys), new Issued(leaf, leafKeys));
  }

  /** A new code-signing leaf under {@code chain}'s intermediate (a leaf rotation). */
  public static Issued leafUnder(Chain chain, String commonName, Duration validity) {
    KeyPair kp = rsa();
    Instant now = Instant.now();
    X509Certificate leaf = build(commonName, kp, chain.intermediate().certificate().getSubjectX500Principal().getName(),
        chain.intermediate().privateKey(), now.minusSeconds(60), now.plus(validity), false, -1);
    return new Issued(leaf, kp);
  }

  private static X509Certificate build(String subject, KeyPair subjectKeys, String issuer, PrivateKey issuerKey,
      Instant from, Instant to, boolean ca, int pathLen) {
    try {
      X500Name issuerName = issuer.contains("=") ? new X500Name(issuer) : new X500Name("CN=" + issuer);
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuerName, BigInteger.valueOf(SERIAL.incrementAndGet()),
          Date.from(from), Date.from(to), new X500Name("CN=" + subject), subjectKeys.getPublic());
      if (ca) {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(pathLen));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      } else {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
      }
      return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKey)));
    } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make test certificate " + subject + ": " + e.getMessage(), e);
    }
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048);
      return g.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("RSA unavailable", e);
    }
  }

  /** PEM text of a certificate or key (PKCS#8 for a private key). */
  public static String pem(Object o) {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o instanceof PrivateKey ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator((PrivateKey) o, null) : o);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write PEM", e);
    }
    return w.toString();
  }
}
