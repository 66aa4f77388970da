package dev.updraft.cli;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * {@code updraft keys generate}: what {@code npx expo-updates codesigning:generate} makes, an RSA-2048
 * key pair and a self-signed certificate with keyUsage digitalSignature and extendedKeyUsage
 * codeSigning (both critical), written as {@code private-key.pem} (PKCS#1, {@code 0600}),
 * {@code public-key.pem} and {@code certificate.pem}.
 */
final class KeyGenerator {
  private KeyGenerator() {}

  /** The files written. */
  record Generated(Path privateKey, Path publicKey, Path certificate, X509Certificate cert) {}

  static Generated generate(Path out, String commonName, int validityYears, Instant now) throws CliException {
    Path key = out.resolve("private-key.pem");
    Path pub = out.resolve("public-key.pem");
    Path cert = out.resolve("certificate.pem");
    for (Path p : new Path[] {key, pub, cert}) {
      if (Files.exists(p)) {
        throw new CliException(p + " exists; refusing to overwrite a key (choose another --out)");
      }
    }
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
      g.initialize(2048, new SecureRandom());
      KeyPair kp = g.generateKeyPair();
      Instant from = now.minus(Duration.ofMinutes(1));
      Instant to = now.atZone(ZoneOffset.UTC).plusYears(validityYears).toInstant();
      var name = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, commonName).build();
      byte[] serial = new byte[9];
      new SecureRandom().nextBytes(serial);
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(name, new BigInteger(1, serial), Date.from(from), Date.from(to), name, kp.getPublic());
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(Extension.extendedKeyUsage, true, new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
      X509Certificate c =
          new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
      Files.createDirectories(out);
      if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } else {
        Files.createFile(key);
      }
      Files.writeString(key, pem(kp.getPrivate()), StandardCharsets.US_ASCII);
      Files.writeString(pub, pem(kp.getPublic()), StandardCharsets.US_ASCII);
      Files.writeString(cert, pem(c), StandardCharsets.US_ASCII);
      return new Generated(key, pub, cert, c);
    } catch (IOException e) {
      throw new CliException("cannot write keys to " + out + ": " + e.getMessage());
    } catch (Exception e) {
      throw new IllegalStateException("key generation failed", e);
    }
  }

  private static String pem(Object o) throws IOException {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o);
    }
    return w.toString();
  }
}
