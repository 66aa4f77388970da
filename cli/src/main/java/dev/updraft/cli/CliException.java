package dev.updraft.cli;

/** A command failed; the message is the one line the user sees. {@link #usage} errors exit with 2. */
final class CliException extends Exception {
  final boolean usage;
  final int status;
  final String code;

  CliException(String message) {
    this(message, false, 0, null);
  }

  CliException(String message, boolean usage, int status, String code) {
    super(message, null, false, false);
    this.usage = usage;
    this.status = status;
    this.code = code;
  }

  static CliException usage(String message) {
    return new CliException(message, true, 0, null);
  }
}
