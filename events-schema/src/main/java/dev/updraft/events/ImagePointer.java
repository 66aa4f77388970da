package dev.updraft.events;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The small object {@value #NAME} that names the newest edge image the control plane wrote to the asset storage.
 * The image object ({@link ImageSeal}) is written first under a name of its own, then this pointer: a reader
 * that follows the pointer finds a whole image (object stores and renames make each object appear whole), and
 * checks its SHA-256 against the pointer's before opening it.
 *
 * <p>Text, UTF-8, one {@code key=value} a line after the line {@code updraft-edge-image 1}: {@code name},
 * {@code sha256} (hex, of the sealed object), {@code size}, {@code writtenAt} (epoch milliseconds).
 *
 * @param name the image object's name beside the pointer
 * @param sha256 lower-case hex SHA-256 of the sealed object
 * @param size its length in bytes
 * @param writtenAtMillis when it was written
 */
public record ImagePointer(String name, String sha256, long size, long writtenAtMillis) {
  /** The pointer's name beside the images. */
  public static final String NAME = "newest";
  private static final String FIRST = "updraft-edge-image 1";
  /** What an image object's name looks like: {@code image-<20-digit epoch millis>-<8 hex>.sealed}. */
  public static final Pattern IMAGE_NAME = Pattern.compile("image-[0-9]{20}-[0-9a-f]{8}\\.sealed");
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");

  public ImagePointer {
    if (!IMAGE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not an edge image name: " + name);
    }
    if (!SHA.matcher(sha256).matches()) {
      throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits: got " + sha256);
    }
  }

  /** An image object's name for an image written at {@code millis}. */
  public static String imageName(long millis, String sha256) {
    return String.format(java.util.Locale.ROOT, "image-%020d-%s.sealed", millis, sha256.substring(0, 8));
  }

  public byte[] encode() {
    return (FIRST + "\nname=" + name + "\nsha256=" + sha256 + "\nsize=" + size + "\nwrittenAt=" + writtenAtMillis + "\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a pointer.
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static ImagePointer decode(byte[] bytes) {
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    if (lines.length == 0 || !lines[0].equals(FIRST)) {
      throw new IllegalArgumentException("not an edge image pointer (first line is not '" + FIRST + "')");
    }
    Map<String, String> v = new HashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int eq = lines[i].indexOf('=');
      if (eq > 0) {
        v.put(lines[i].substring(0, eq), lines[i].substring(eq + 1).trim());
      }
    }
    for (String k : new String[] {"name", "sha256", "size", "writtenAt"}) {
      if (!v.containsKey(k)) {
        throw new IllegalArgumentException("edge image pointer without " + k);
      }
    }
    try {
      return new ImagePointer(v.get("name"), v.get("sha256"), Long.parseLong(v.get("size")), Long.parseLong(v.get("writtenAt")));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("edge image pointer with a bad number: " + e.getMessage());
    }
  }
}
