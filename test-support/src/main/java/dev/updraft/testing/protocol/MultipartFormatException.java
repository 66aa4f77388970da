package dev.updraft.testing.protocol;

/** A multipart body that a strict client would reject; the message names the rule and the byte offset. */
public final class MultipartFormatException extends RuntimeException {
  public MultipartFormatException(String message) {
    super(message);
  }
}
