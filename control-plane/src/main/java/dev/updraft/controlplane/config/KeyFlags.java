package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.ALLOW_PLAINTEXT_KEYS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.KEY_IN_USE_DAYS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.KEY_STORE_DIR;
import static dev.updraft.controlplane.config.ControlPlaneFlags.MASTER_KEY;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;

/**
 * Where the control plane keeps each app's private signing keys and how: {@code --key-store-dir}
 * [&lt;data-dir&gt;/keys]; {@code --master-key} [none]: base64 of 32 random bytes, with which every key is sealed
 * (AES-256-GCM) before it is written; {@code --allow-plaintext-keys} [false]: without a master key, keys are
 * refused (409 {@code master-key-required}) unless this says keys in clear on disk are acceptable (a test bench),
 * and the control plane says so at every start; {@code --key-in-use-days} [30]: a key devices asked for within this
 * many days is not retired unless the request says force. Validated with the rest of {@link ControlPlaneConfig}.
 * Immutable (the key is copied in and out).
 */
public final class KeyFlags {
  private final Path keyStoreDir;
  private final byte[] masterKey;
  private final boolean allowPlaintextKeys;
  private final int keyInUseDays;

  private KeyFlags(Path keyStoreDir, byte[] masterKey, boolean allowPlaintextKeys, int keyInUseDays) {
    this.keyStoreDir = keyStoreDir;
    this.masterKey = masterKey;
    this.allowPlaintextKeys = allowPlaintextKeys;
    this.keyInUseDays = keyInUseDays;
  }

  static KeyFlags from(Settings s, Path dataDir) {
    Path given = KEY_STORE_DIR.read(s);
    Path dir = (given == null ? dataDir.resolve("keys") : given).toAbsolutePath().normalize();
    String mk = MASTER_KEY.read(s);
    boolean plaintext = ALLOW_PLAINTEXT_KEYS.read(s);
    if (mk != null && plaintext) {
      throw new ConfigException("--allow-plaintext-keys (UPDRAFT_ALLOW_PLAINTEXT_KEYS) and --master-key (UPDRAFT_MASTER_KEY) contradict each"
          + " other: with a master key every new key is sealed; drop --allow-plaintext-keys");
    }
    return new KeyFlags(dir, mk == null ? null : decode(mk), plaintext, KEY_IN_USE_DAYS.read(s));
  }

  private static byte[] decode(String v) {
    byte[] k;
    try {
      k = Base64.getDecoder().decode(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("--master-key (UPDRAFT_MASTER_KEY) must be base64 of 32 random bytes (openssl rand -base64 32): not base64");
    }
    if (k.length != 32) {
      throw new ConfigException("--master-key (UPDRAFT_MASTER_KEY) must be base64 of 32 random bytes (openssl rand -base64 32): got " + k.length + " bytes");
    }
    return k;
  }

  public Path keyStoreDir() {
    return keyStoreDir;
  }

  /** Null without {@code --master-key}; a copy otherwise. */
  public byte[] masterKey() {
    return masterKey == null ? null : masterKey.clone();
  }

  /** Whether keys may be written in clear ({@code --allow-plaintext-keys}, only without a master key). */
  public boolean allowPlaintextKeys() {
    return allowPlaintextKeys;
  }

  /** How far back a device's ask for a keyid keeps that key from being retired unforced ({@code --key-in-use-days}). */
  public Duration keyInUseWindow() {
    return Duration.ofDays(keyInUseDays);
  }

  @Override
  public String toString() {
    return "keyStore=" + keyStoreDir + ", masterKey=" + (masterKey == null ? (allowPlaintextKeys ? "none (plaintext allowed)" : "none") : "<redacted>")
        + ", keyInUseDays=" + keyInUseDays;
  }
}
