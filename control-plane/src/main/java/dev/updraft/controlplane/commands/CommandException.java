package dev.updraft.controlplane.commands;

/**
 * A command was refused: bad input (4xx) or the log is not writable (503). The status and code go to the
 * API's JSON error as they are; the message says what is wrong and what to do. Nothing was appended.
 */
public final class CommandException extends Exception {
  private final int status;
  private final String code;

  public CommandException(int status, String code, String message) {
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

  public static CommandException badRequest(String code, String message) {
    return new CommandException(400, code, message);
  }

  public static CommandException notFound(String code, String message) {
    return new CommandException(404, code, message);
  }

  public static CommandException conflict(String code, String message) {
    return new CommandException(409, code, message);
  }
}
