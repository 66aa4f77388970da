package dev.updraft.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Locates the shared test fixtures: real {@code expo export} output ({@code expo-export-sdk57/update-1},
 * {@code update-2}) and test-only code-signing keys ({@code codesigning/}). They live in the
 * repository's top-level {@code fixtures/} folder (see its README).
 *
 * <p>Looked up in order: system property {@code updraft.fixtures} (the build sets it), environment
 * {@code UPDRAFT_FIXTURES}, then {@code fixtures/} in the working directory and each of its parents.
 */
public final class Fixtures {
  private static final String MASTER_KEY = java.util.Base64.getEncoder().encodeToString(randomBytes(32));

  /**
   * A control plane's {@code --master-key} for tests: 32 random bytes made once per test JVM (the same for every
   * control plane a test restarts; never a fixed secret). Control planes refuse to store keys without one.
   */
  public static String masterKey() {
    return MASTER_KEY;
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new java.security.SecureRandom().nextBytes(b);
    return b;
  }

  private static Path root;

  private Fixtures() {}

  /** The fixtures directory; fails the test with a clear message when it cannot be found. */
  public static synchronized Path root() {
    if (root != null) {
      return root;
    }
    List<Path> tried = new ArrayList<>();
    String prop = System.getProperty("updraft.fixtures");
    String env = System.getenv("UPDRAFT_FIXTURES");
    if (prop != null) {
      tried.add(Path.of(prop));
    }
    if (env != null) {
      tried.add(Path.of(env));
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      tried.add(p.resolve("fixtures"));
    }
    for (Path p : tried) {
      if (Files.isDirectory(p.resolve("expo-export-sdk57")) && Files.isDirectory(p.resolve("codesigning"))) {
        root = p.toAbsolutePath().normalize();
        return root;
      }
    }
    throw new IllegalStateException(
        "test fixtures not found (expo-export-sdk57/ and codesigning/); set -Dupdraft.fixtures=DIR or UPDRAFT_FIXTURES. Tried: " + tried);
  }

  /** {@code expo-export-sdk57/update-1}: the first real {@code expo export} (runtime 1.0.0). */
  public static Path update1() {
    return root().resolve("expo-export-sdk57/update-1");
  }

  /** {@code expo-export-sdk57/update-2}: the second export, new bundles, same two assets. */
  public static Path update2() {
    return root().resolve("expo-export-sdk57/update-2");
  }

  /**
   * {@code expo-export-sdk57/update-1-source-maps.zip}: a real {@code expo export --source-maps} of the same app
   * (metadata.json, both Hermes bundles, each with its {@code .hbc.map} beside it, and the two assets), zipped.
   */
  public static Path sourceMapsExportZip() {
    return root().resolve("expo-export-sdk57/update-1-source-maps.zip");
  }

  /** {@link #sourceMapsExportZip()} unpacked into {@code dir} (created); returns {@code dir}. */
  public static Path sourceMapsExport(Path dir) throws java.io.IOException {
    try (java.util.zip.ZipInputStream in = new java.util.zip.ZipInputStream(Files.newInputStream(sourceMapsExportZip()))) {
      for (java.util.zip.ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        Path out = dir.resolve(e.getName()).normalize();
        if (!out.startsWith(dir)) {
          throw new IllegalStateException("zip entry outside the folder: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(out);
        } else {
          Files.createDirectories(out.getParent());
          Files.copy(in, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    return dir;
  }

  /** Self-signed code-signing certificate (keyUsage digitalSignature, EKU codeSigning). */
  public static Path certificatePem() {
    return root().resolve("codesigning/certificate.pem");
  }

  /** The matching private key, PKCS#1 ({@code RSA PRIVATE KEY}), as Expo's generator writes it. */
  public static Path privateKeyPkcs1Pem() {
    return root().resolve("codesigning/private-key.pem");
  }

  /** The same private key as PKCS#8. */
  public static Path privateKeyPkcs8Pem() {
    return root().resolve("codesigning/private-key.pkcs8.pem");
  }

  /** The public key (SPKI PEM). */
  public static Path publicKeyPem() {
    return root().resolve("codesigning/public-key.pem");
  }
}
