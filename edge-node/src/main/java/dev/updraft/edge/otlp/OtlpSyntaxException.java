package dev.updraft.edge.otlp;

/** A request body that is not the OTLP message its route takes; the message names what is wrong (sent to the client). */
final class OtlpSyntaxException extends Exception {
  private static final long serialVersionUID = 1L;

  OtlpSyntaxException(String message) {
    super(message, null, false, false);
  }
}
