package dev.updraft.testing.protocol;

import java.util.List;
import java.util.Locale;

/**
 * A parsed {@code multipart/mixed} body. Immutable.
 *
 * @param boundary the boundary from the content-type
 * @param preambleBytes bytes before the first delimiter (a well-behaved server sends none)
 * @param parts the parts in the order sent
 * @param epilogueBytes bytes after the closing delimiter's CRLF
 */
public record MultipartBody(String boundary, int preambleBytes, List<MultipartPart> parts, int epilogueBytes) {

  public MultipartBody {
    parts = List.copyOf(parts);
  }

  /** The first part whose content-disposition {@code name} is {@code name}, or null. */
  public MultipartPart part(String name) {
    for (MultipartPart p : parts) {
      if (name.equals(p.name())) {
        return p;
      }
    }
    return null;
  }

  /**
   * The boundary of a {@code multipart/mixed} content-type value.
   *
   * @throws MultipartFormatException when the type is not {@code multipart/mixed} or the boundary is
   *     missing, empty or longer than 70 characters (RFC 2046)
   */
  public static String boundaryOf(String contentType) {
    if (contentType == null) {
      throw new MultipartFormatException("no content-type");
    }
    String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!type.equals("multipart/mixed")) {
      throw new MultipartFormatException("content-type is not multipart/mixed: " + contentType);
    }
    String b = MultipartPart.parameter(contentType, "boundary");
    if (b == null || b.isEmpty()) {
      throw new MultipartFormatException("content-type has no boundary: " + contentType);
    }
    if (b.length() > 70) {
      throw new MultipartFormatException("boundary longer than 70 characters: length=" + b.length());
    }
    return b;
  }
}
