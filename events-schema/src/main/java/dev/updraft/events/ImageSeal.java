package dev.updraft.events;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The edge image as the control plane writes it to the asset storage: a {@link StoredImage} encrypted and
 * authenticated with AES-256-GCM under the key shared by the control plane and the edges
 * ({@code --edge-image-key}, 32 bytes in base64). The image holds every app's events (token hashes, unreleased
 * branches), so it is readable by no one without the key, even where the storage is public by URL; and an edge
 * opens only what the key sealed: a changed byte, a cut object or another key is refused ({@link Opened.Refused}).
 *
 * <p>Format, version {@value #VERSION}: magic {@code UPDRAFTS} (8 bytes), version (int32), nonce (12 bytes), then
 * the GCM ciphertext of the {@link StoredImage} bytes with its 16-byte tag; the magic and version are the
 * associated data. Thread-safe (every call makes its own cipher).
 */
public final class ImageSeal {
  /** The format this build writes and reads. */
  public static final int VERSION = 1;
  private static final byte[] MAGIC = "UPDRAFTS".getBytes(StandardCharsets.US_ASCII);
  private static final int NONCE = 12;
  private static final int TAG_BITS = 128;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;

  private ImageSeal(byte[] key) {
    this.key = new SecretKeySpec(key, "AES");
  }

  /**
   * The seal of a key given as base64 (standard or URL-safe).
   *
   * @param flag names the setting in the message of a bad key (the key itself never appears)
   * @throws IllegalArgumentException when it is not 32 bytes of base64
   */
  public static ImageSeal of(String base64, String flag) {
    byte[] k;
    try {
      String s = base64.trim();
      k = s.indexOf('-') >= 0 || s.indexOf('_') >= 0 ? Base64.getUrlDecoder().decode(s) : Base64.getDecoder().decode(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(flag + " must be 32 bytes in base64 (openssl rand -base64 32): it is not base64");
    }
    if (k.length != 32) {
      throw new IllegalArgumentException(flag + " must be 32 bytes in base64 (openssl rand -base64 32): got " + k.length + " bytes");
    }
    return new ImageSeal(k);
  }

  /** What {@link #open} found. */
  public sealed interface Opened {
    /** The image's bytes, authenticated. */
    record Image(byte[] bytes) implements Opened {}

    /**
     * Not an image this key sealed.
     *
     * @param reason {@code tampered} (authentication failed: changed bytes, a cut object or another key) or
     *     {@code unknown-format}
     */
    record Refused(String reason, String detail) implements Opened {}
  }

  /** Encrypts and authenticates an image's bytes with a fresh random nonce. */
  public byte[] seal(byte[] image) {
    byte[] nonce = new byte[NONCE];
    RANDOM.nextBytes(nonce);
    byte[] header = header();
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      c.updateAAD(header);
      byte[] body = c.doFinal(image);
      return ByteBuffer.allocate(header.length + NONCE + body.length).put(header).put(nonce).put(body).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  /** Authenticates and decrypts what {@link #seal} wrote. */
  public Opened open(byte[] sealed) {
    byte[] header = header();
    if (sealed.length < header.length + NONCE + TAG_BITS / 8 || !Arrays.equals(sealed, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      return new Opened.Refused("unknown-format", "not a sealed edge image (" + sealed.length + " bytes, no UPDRAFTS header)");
    }
    int version = ByteBuffer.wrap(sealed, MAGIC.length, 4).getInt();
    if (version != VERSION) {
      return new Opened.Refused("unknown-format", "sealed format version " + version + " (this build reads " + VERSION + ")");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, header.length, NONCE));
      c.updateAAD(header);
      int at = header.length + NONCE;
      return new Opened.Image(c.doFinal(sealed, at, sealed.length - at));
    } catch (AEADBadTagException e) {
      return new Opened.Refused("tampered", "authentication failed over " + sealed.length
          + " bytes: the object was changed or cut, or sealed with another --edge-image-key");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM is not available in this JVM", e);
    }
  }

  private static byte[] header() {
    return ByteBuffer.allocate(MAGIC.length + 4).put(MAGIC).putInt(VERSION).array();
  }

  @Override
  public String toString() {
    return "ImageSeal[AES-256-GCM, key hidden]";
  }
}
