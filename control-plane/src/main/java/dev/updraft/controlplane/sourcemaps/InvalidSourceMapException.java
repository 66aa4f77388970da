package dev.updraft.controlplane.sourcemaps;

/** A map that is not JSON or not a valid source map v3; the message names what is wrong and where. */
public final class InvalidSourceMapException extends Exception {
  private static final long serialVersionUID = 1L;

  InvalidSourceMapException(String message) {
    super(message);
  }
}
