package dev.updraft.controlplane.signing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where apps' private signing keys live: a directory only its owner can read ({@code 0700}), one file
 * per app and certificate ({@code <app>/<certificate sha256>.key}, {@code 0600}) holding the key as
 * PKCS#8 PEM, or, with a master key, sealed with AES-256-GCM (random 96-bit nonce, the app id and
 * certificate hash as associated data, so a sealed file cannot be moved to another app).
 *
 * <p>Files are keyed by certificate so that replaying the event log finds the key each
 * {@code signing-key.registered} event refers to. Every control-plane instance that may become the
 * writer needs the same directory (a shared volume or a secret mount) and the same master key.
 * Thread-safe; loaded keys are cached.
 */
public final class KeyStore {
  private static final Logger LOG = LoggerFactory.getLogger(KeyStore.class);
  private static final String SEALED_HEADER = "updraft-sealed-key-v1";
  /** The address {@link #exercise} seals its throwaway key under (no file is written). */
  private static final String WARMUP_APP = "warm-up";
  private static final String WARMUP_SHA256 = "0".repeat(64);
  private static final Pattern SAFE = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
  private static final Pattern HEX = Pattern.compile("[0-9a-f]{64}");
  private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-------");

  private final Path dir;
  private final byte[] masterKey;
  private final boolean plaintextAllowed;
  private final boolean posix;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, PrivateKey> cache = new ConcurrentHashMap<>();

  /**
   * Opens (creating it when missing) the key store at {@code dir}.
   *
   * @param masterKey nullable: 32 bytes; when given, new keys are sealed with it
   */
  public KeyStore(Path dir, byte[] masterKey) throws IOException {
    this(dir, masterKey, true);
  }

  /**
   * @param plaintextAllowed whether, without {@code masterKey}, keys may be written in clear; when not,
   *     {@link #maySave} is false and {@link #save} refuses
   */
  public KeyStore(Path dir, byte[] masterKey, boolean plaintextAllowed) throws IOException {
    this.dir = dir;
    this.masterKey = masterKey == null ? null : masterKey.clone();
    this.plaintextAllowed = plaintextAllowed;
    this.posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    ensureDirectory(dir);
  }

  public Path directory() {
    return dir;
  }

  /** Whether {@link #save} writes keys: sealed with the master key, or in clear where that was allowed. */
  public boolean maySave() {
    return masterKey != null || plaintextAllowed;
  }

  /** Whether new keys are sealed (a master key was given). */
  public boolean sealing() {
    return masterKey != null;
  }

  /**
   * Stores the key of {@code appId}'s certificate {@code certSha256} (overwrites the same pair).
   *
   * @throws IllegalStateException when {@link #maySave} is false (callers check it first and refuse the command)
   */
  public void save(String appId, String certSha256, PrivateKey key) throws IOException {
    if (!maySave()) {
      throw new IllegalStateException("refusing to write the key of app=" + appId + " cert=" + certSha256 + " in clear: no --master-key");
    }
    Path file = file(appId, certSha256);
    ensureDirectory(file.getParent());
    String pem = PemKeys.toPkcs8Pem(key);
    byte[] content = masterKey == null ? pem.getBytes(StandardCharsets.US_ASCII) : seal(appId, certSha256, pem);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + Long.toHexString(random.nextLong()));
    if (posix) {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(FILE_PERMS));
    } else {
      Files.createFile(tmp);
    }
    try {
      Files.write(tmp, content);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    cache.put(appId + "/" + certSha256, key);
  }

  /**
   * The key of {@code appId}'s certificate {@code certSha256}, or null when the store has no such file.
   *
   * @throws IllegalStateException when the file exists but cannot be opened (sealed without a master
   *     key, wrong master key, corrupt); the message names the file
   */
  public PrivateKey load(String appId, String certSha256) {
    String id = appId + "/" + certSha256;
    PrivateKey cached = cache.get(id);
    if (cached != null) {
      return cached;
    }
    Path file = file(appId, certSha256);
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read signing key file=" + file + ": " + e.getMessage(), e);
    }
    PrivateKey key = open(appId, certSha256, new String(content, StandardCharsets.US_ASCII), file);
    cache.put(id, key);
    return key;
  }

  /** The key in a key file's text: sealed (opened with the master key) or PKCS#8 PEM; {@code file} names it in errors. */
  private PrivateKey open(String appId, String certSha256, String text, Path file) {
    String pem;
    if (text.startsWith(SEALED_HEADER)) {
      if (masterKey == null) {
        throw new IllegalStateException(
            "signing key file=" + file + " is sealed; start the control plane with the --master-key it was sealed with");
      }
      pem = unseal(appId, certSha256, text, file);
    } else {
      pem = text;
    }
    try {
      return PemKeys.parsePrivateKey(pem);
    } catch (KeyMaterialException e) {
      throw new IllegalStateException("signing key file=" + file + " is corrupt: " + e.getMessage(), e);
    }
  }

  /**
   * What {@link #load} does to a key file (the same code opens it), done in memory to {@code key} (a throwaway key, never stored): its PKCS#8
   * PEM, sealed and opened again with the master key when there is one, then parsed. The control plane's command
   * warm-up calls it, so that the first publish after a start does not pay for loading this code.
   *
   * @return the key parsed back
   */
  public PrivateKey exercise(PrivateKey key) {
    String pem = PemKeys.toPkcs8Pem(key);
    String text = masterKey == null ? pem : new String(seal(WARMUP_APP, WARMUP_SHA256, pem), StandardCharsets.US_ASCII);
    return open(WARMUP_APP, WARMUP_SHA256, text, Path.of("(warm-up key, in memory)"));
  }

  /**
   * Destroys every key file of {@code appId} (a deleted app) and forgets its cached keys.
   *
   * @return how many key files were removed
   */
  public int deleteApp(String appId) throws IOException {
    if (!SAFE.matcher(appId).matches()) {
      throw new IllegalArgumentException("bad key store address appId=" + appId);
    }
    cache.keySet().removeIf(id -> id.startsWith(appId + "/"));
    Path d = dir.resolve(appId);
    if (!Files.isDirectory(d)) {
      return 0;
    }
    int n = 0;
    try (var files = Files.list(d)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
        n++;
      }
    }
    Files.deleteIfExists(d);
    return n;
  }

  /**
   * Destroys the key files of every app not in {@code live}: those of an app whose {@code app.deleted}
   * committed before its files were removed (a crash between the two), or whose key was stored before an
   * {@code app.created} that never committed. Run at start-up, after the log's replay and before any command.
   *
   * @return the app ids whose files were destroyed, sorted
   */
  public List<String> sweep(Set<String> live) throws IOException {
    List<String> swept = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return swept;
    }
    try (var dirs = Files.list(dir)) {
      for (Path d : (Iterable<Path>) dirs::iterator) {
        String appId = d.getFileName().toString();
        if (Files.isDirectory(d) && SAFE.matcher(appId).matches() && !live.contains(appId)) {
          int n = deleteApp(appId);
          LOG.warn("destroyed {} signing key files of appId={}, which the event log does not hold (deleted before a crash)", n, appId);
          swept.add(appId);
        }
      }
    }
    Collections.sort(swept);
    return swept;
  }

  private Path file(String appId, String certSha256) {
    if (!SAFE.matcher(appId).matches() || !HEX.matcher(certSha256).matches()) {
      throw new IllegalArgumentException("bad key store address appId=" + appId + " certSha256=" + certSha256);
    }
    return dir.resolve(appId).resolve(certSha256 + ".key");
  }

  private byte[] seal(String appId, String certSha256, String pem) {
    try {
      byte[] nonce = new byte[12];
      random.nextBytes(nonce);
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(masterKey, "AES"), new GCMParameterSpec(128, nonce));
      c.updateAAD(aad(appId, certSha256));
      byte[] ct = c.doFinal(pem.getBytes(StandardCharsets.US_ASCII));
      byte[] all = new byte[nonce.length + ct.length];
      System.arraycopy(nonce, 0, all, 0, nonce.length);
      System.arraycopy(ct, 0, all, nonce.length, ct.length);
      return (SEALED_HEADER + "\n" + Base64.getEncoder().encodeToString(all) + "\n").getBytes(StandardCharsets.US_ASCII);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot seal key for appId=" + appId, e);
    }
  }

  private String unseal(String appId, String certSha256, String text, Path file) {
    try {
      byte[] all = Base64.getDecoder().decode(text.substring(SEALED_HEADER.length()).trim());
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(masterKey, "AES"), new GCMParameterSpec(128, all, 0, 12));
      c.updateAAD(aad(appId, certSha256));
      return new String(c.doFinal(all, 12, all.length - 12), StandardCharsets.US_ASCII);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "cannot unseal signing key file=" + file + ": wrong --master-key or a corrupt file (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  private static byte[] aad(String appId, String certSha256) {
    return ("updraft-key:" + appId + ":" + certSha256).getBytes(StandardCharsets.US_ASCII);
  }

  private void ensureDirectory(Path d) throws IOException {
    if (!Files.isDirectory(d)) {
      if (posix) {
        Files.createDirectories(d, PosixFilePermissions.asFileAttribute(DIR_PERMS));
      } else {
        Files.createDirectories(d);
      }
    }
    if (posix) {
      Set<PosixFilePermission> now = Files.getPosixFilePermissions(d);
      if (!now.equals(DIR_PERMS)) {
        LOG.warn("key store directory={} had permissions={}; setting rwx------", d, PosixFilePermissions.toString(now));
        Files.setPosixFilePermissions(d, DIR_PERMS);
      }
    }
  }
}
