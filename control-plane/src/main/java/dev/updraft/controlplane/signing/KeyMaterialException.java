package dev.updraft.controlplane.signing;

/**
 * A certificate or private key a publisher supplied is unusable. {@link #code()} is a stable error code
 * for the API; the message says what is wrong and how to fix it. Expected condition of bad input.
 */
public final class KeyMaterialException extends Exception {
  private final String code;

  public KeyMaterialException(String code, String message) {
    super(message);
    this.code = code;
  }

  public String code() {
    return code;
  }
}
