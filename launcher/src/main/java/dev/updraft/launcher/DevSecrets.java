package dev.updraft.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The secrets {@code updraft dev} makes on its first start and keeps in its data dir, each in an owner-only
 * file: the admin token ({@code admin-token}) and the master key that seals every app's private signing key
 * ({@code master-key}), so that no key sits in clear on disk even on a laptop. An operator's own
 * {@code UPDRAFT_MASTER_KEY} wins over the kept one.
 */
final class DevSecrets {
  private static final Logger LOG = LoggerFactory.getLogger(DevSecrets.class);
  static final String MASTER_KEY_FILE = "master-key";

  private DevSecrets() {}

  /** The admin token kept in the data dir, generated on the first start. */
  static String adminToken(Path dir) {
    return kept(dir.resolve("admin-token"), "upd_admin_", 24, Base64.getUrlEncoder().withoutPadding());
  }

  /** {@code env} with {@code UPDRAFT_MASTER_KEY}: the one given, else the one kept in the data dir (made on the first start). */
  static Map<String, String> withMasterKey(Map<String, String> env, Path dir) {
    if (env.get("UPDRAFT_MASTER_KEY") != null) {
      return env;
    }
    Map<String, String> out = new HashMap<>(env);
    out.put("UPDRAFT_MASTER_KEY", kept(dir.resolve(MASTER_KEY_FILE), "", 32, Base64.getEncoder()));
    return out;
  }

  /** The secret in {@code file}, or {@code prefix} and {@code bytes} random bytes written there (owner-only) first. */
  private static String kept(Path file, String prefix, int bytes, Base64.Encoder encoder) {
    try {
      if (Files.exists(file)) {
        return Files.readString(file, StandardCharsets.UTF_8).trim();
      }
      byte[] random = new byte[bytes];
      new SecureRandom().nextBytes(random);
      String secret = prefix + encoder.encodeToString(random);
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, secret + "\n", StandardCharsets.UTF_8);
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        LOG.warn("cannot restrict permissions of {}: not a POSIX file system", file);
      }
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return secret;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read or write " + file, e);
    }
  }
}
