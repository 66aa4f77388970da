package dev.updraft.controlplane.core;

/**
 * A refusal: bad input (4xx), or the control plane cannot write now (503). It is the one refusal type of
 * the control plane, thrown by the API's request checks on the event loop and by commands on the command
 * thread alike; the API's failure handler answers it as {@code {"error":{"code":…,"message":…}}} with its
 * status. The code is stable; the message says what is wrong and what to do. When a command is refused,
 * nothing was appended.
 *
 * <p>Unchecked: a refusal ends the request wherever it is found, and the futures that carry commands fail
 * with it as their cause.
 */
public final class CommandException extends RuntimeException {
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
