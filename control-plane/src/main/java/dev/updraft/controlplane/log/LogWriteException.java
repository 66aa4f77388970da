package dev.updraft.controlplane.log;

/**
 * An append did not succeed. {@link #kind()} says what is known about the log afterwards.
 */
public final class LogWriteException extends Exception {
  /** What is known after the failure. */
  public enum Kind {
    /** Another instance with the same transactional id took over; this one must not write again. */
    FENCED,
    /** The transaction was aborted: nothing was written; a retry may succeed. */
    ABORTED,
    /** The outcome is unknown (the commit may or may not have happened); only a restart can tell. */
    UNCERTAIN
  }

  private final Kind kind;

  public LogWriteException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
