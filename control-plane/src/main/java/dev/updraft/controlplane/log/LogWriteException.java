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
    /** An event is larger than the log takes ({@link EventLog#maxEventBytes()}): nothing was written; a retry cannot succeed. */
    TOO_LARGE,
    /**
     * The outcome is unknown (the commit may or may not have happened): {@link EventLog#settle} finds out
     * what it can; otherwise only a restart can tell.
     */
    UNCERTAIN
  }

  private final Kind kind;
  /** The append whose commit was not confirmed; null when the failure came before its commit. */
  private final transient Attempt attempt;

  public LogWriteException(Kind kind, String message, Throwable cause) {
    this(kind, message, cause, null);
  }

  LogWriteException(Kind kind, String message, Throwable cause, Attempt attempt) {
    super(message, cause);
    this.kind = kind;
    this.attempt = attempt;
  }

  public Kind kind() {
    return kind;
  }

  Attempt attempt() {
    return attempt;
  }
}
