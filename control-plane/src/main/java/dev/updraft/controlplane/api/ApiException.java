package dev.updraft.controlplane.api;

/** An HTTP error with a stable code and a message a person can act on; rendered as the JSON error. */
public final class ApiException extends RuntimeException {
  private final int status;
  private final String code;

  public ApiException(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }
}
