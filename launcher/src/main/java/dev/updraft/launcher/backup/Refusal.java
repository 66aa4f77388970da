package dev.updraft.launcher.backup;

/**
 * Why {@code updraft backup} or {@code restore} will not go on (a directory that is not empty, topics that
 * hold records, a backup that does not match its manifest, Kafka unreachable): one line for the operator;
 * the command exits with status 1.
 */
final class Refusal extends RuntimeException {
  private static final long serialVersionUID = 1L;

  Refusal(String message) {
    super(message);
  }

  Refusal(String message, Throwable cause) {
    super(message, cause);
  }
}
