package dev.updraft.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A private certificate authority made by a test (BouncyCastle): a root, and TLS certificates under it for
 * servers (with their loopback names) and clients (mTLS, the common name as the principal), written as PEM
 * files the way Kafka ({@code ssl.keystore.type=PEM}) and PostgreSQL read them. Keys are 2048-bit RSA, valid
 * a day. Thread-safe.
 */
public final class TestCa {
  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final String name;
  private final KeyPair keys;
  private final X509Certificate root;

  /**
   * The PEM files of one certificate: {@code cert} (the certificate), {@code key} (unencrypted PKCS#8) and
   * {@code keystore} (key then certificate: Kafka's PEM key store).
   */
  public record PemFiles(Path cert, Path key, Path keystore) {}

  private TestCa(String name) {
    this.name = name;
    this.keys = rsa();
    Instant now = Instant.now();
    this.root = build(new X500Name("CN=" + name + " Root CA"), keys, new X500Name("CN=" + name + " Root CA"), keys, now, true, null, null);
  }

  /** A new root CA named {@code name}. */
  public static TestCa create(String name) {
    return new TestCa(name);
  }

  public X509Certificate root() {
    return root;
  }

  /** Writes the root certificate (what clients trust) to {@code file}. */
  public Path writeRoot(Path file) {
    write(file, TestCertificates.pem(root));
    return file;
  }

  /** A server certificate for {@code dnsNames} and {@code ips} (the names a client verifies), written under {@code dir}. */
  public PemFiles server(Path dir, String commonName, List<String> dnsNames, List<String> ips) {
    List<GeneralName> san = new ArrayList<>();
    dnsNames.forEach(d -> san.add(new GeneralName(GeneralName.dNSName, d)));
    ips.forEach(i -> san.add(new GeneralName(GeneralName.iPAddress, i)));
    return issue(dir, commonName, san, new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth});
  }

  /** A client certificate whose subject is {@code CN=commonName}, written under {@code dir}. */
  public PemFiles client(Path dir, String commonName) {
    return issue(dir, commonName, List.of(), new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth});
  }

  private PemFiles issue(Path dir, String commonName, List<GeneralName> san, KeyPurposeId[] purposes) {
    KeyPair kp = rsa();
    X509Certificate c = build(new X500Name("CN=" + commonName), kp, new X500Name("CN=" + name + " Root CA"), keys, Instant.now(), false,
        san.isEmpty() ? null : new GeneralNames(san.toArray(new GeneralName[0])), purposes);
    String certPem = TestCertificates.pem(c);
    String keyPem = TestCertificates.pem(kp.getPrivate());
    Path cert = write(dir.resolve(commonName + ".crt"), certPem);
    Path key = write(dir.resolve(commonName + ".key"), keyPem);
    Path keystore = write(dir.resolve(commonName + ".keystore.pem"), keyPem + certPem);
    return new PemFiles(cert, key, keystore);
  }

  private static X509Certificate build(X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys, Instant now,
      boolean ca, GeneralNames san, KeyPurposeId[] purposes) {
    try {
      X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
          Date.from(now.minus(1, ChronoUnit.MINUTES)), Date.from(now.plus(1, ChronoUnit.DAYS)), subject, subjectKeys.getPublic());
      if (ca) {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      } else {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
        if (san != null) {
          b.addExtension(Extension.subjectAlternativeName, false, san);
        }
      }
      return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(issuerKeys.getPrivate())));
    } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make test certificate " + subject + ": " + e.getMessage(), e);
    }
  }

  private static Path write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
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
}
