package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.CommandProcessor.Health;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.log.EventLog;
import dev.updraft.controlplane.log.LogWriteException;
import dev.updraft.controlplane.log.Settlement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this instance may still write ({@link Health}, with the reason {@code /healthz} shows), and what a failed
 * or uncertain write to the log turns into: the refusal the caller gets, and the health the instance is left in.
 *
 * <p>Fenced by another instance: {@link Health#FENCED}, every later command refused with 503 {@code fenced}. A
 * commit whose outcome is unknown: {@link #settle} finds out what it can; written writes are answered, and the
 * instance stops writing ({@link Health#FENCED} when another took over, otherwise {@link Health#BROKEN}). Written on
 * the command thread, read anywhere.
 */
final class WriterHealth {
  /** The processor's logger: operators grep its lines by that name. */
  private static final Logger LOG = LoggerFactory.getLogger(CommandProcessor.class);

  private volatile Health health = Health.STARTING;
  private volatile String reason = "starting: replaying the event log";

  Health health() {
    return health;
  }

  String reason() {
    return reason;
  }

  /** The replay caught up: commands are taken. */
  void ok() {
    health = Health.OK;
    reason = "ok";
  }

  /** Shutting down, unless the instance already stopped writing (that reason stays). */
  void closing() {
    if (health != Health.FENCED && health != Health.BROKEN) {
      health = Health.CLOSED;
      reason = "closed";
    }
  }

  /** Throws the refusal of a command this instance cannot take now. */
  void admit() {
    switch (health) {
      case FENCED:
        throw fencedRefusal(reason);
      case BROKEN:
        throw new CommandException(
            503, "unavailable", "this control plane instance stopped writing (" + reason + "); it must be restarted");
      case OK:
        break;
      default:
        throw new CommandException(503, "unavailable", "the control plane is " + health.name().toLowerCase(Locale.ROOT) + "; retry shortly");
    }
  }

  /** The refusal of a command the command thread's queue did not take. */
  CommandException notQueued() {
    return new CommandException(
        503, health == Health.CLOSED ? "closed" : "busy",
        health == Health.CLOSED
            ? "the control plane is shutting down; retry against another instance"
            : "too many commands waiting (1000); retry shortly");
  }

  /** The instance stopped between a commit and its answer (a test hook threw {@code e}): it stops writing. */
  CommandException stoppedAfterCommit(RuntimeException e) {
    health = Health.BROKEN;
    reason = "stopped after commit: " + e.getMessage();
    return new CommandException(503, "unavailable", "the control plane stopped before answering: " + e.getMessage());
  }

  /**
   * After an append whose commit outcome was unknown: the records when it was committed (the writer has
   * stopped, {@link Health#FENCED} or {@link Health#BROKEN}, but this write is answered); otherwise the
   * refusal to throw.
   */
  List<RecordMetadata> settle(EventLog log, LogWriteException uncertain, Duration timeout) {
    Settlement s = log.settle(uncertain, timeout);
    return switch (s.outcome()) {
      case WRITTEN_THEN_FENCED -> {
        stop(Health.FENCED, s.reason());
        yield s.records();
      }
      case WRITTEN_WRITER_LOST -> {
        stop(Health.BROKEN, s.reason());
        yield s.records();
      }
      case FENCED_NOTHING_WRITTEN -> {
        stop(Health.FENCED, s.reason());
        throw fencedRefusal(s.reason());
      }
      case NOTHING_WRITTEN_WRITER_LOST -> {
        stop(Health.BROKEN, s.reason());
        throw new CommandException(
            503, "unavailable", "this control plane instance stopped writing (" + s.reason() + "); nothing was written; retry after it restarts");
      }
      case UNKNOWN -> throw refusal(uncertain);
    };
  }

  /** The refusal a failed write turns into; a fenced or unknown outcome also stops this instance writing. */
  CommandException refusal(LogWriteException e) {
    switch (e.kind()) {
      case FENCED:
        health = Health.FENCED;
        reason = e.getMessage();
        LOG.warn("fenced: {}", e.getMessage());
        return fencedRefusal(e.getMessage());
      case TOO_LARGE:
        return new CommandException(413, "event-too-large", e.getMessage() + "; nothing was written. A publish carries its"
            + " manifests (every asset's entry) and expoConfig once per platform: make expoConfig smaller, or publish fewer assets");
      case ABORTED:
        LOG.warn("append aborted: {}", e.getMessage());
        return new CommandException(503, "log-unavailable", "the event log is unavailable (" + e.getMessage() + "); nothing was written; retry");
      default:
        health = Health.BROKEN;
        reason = e.getMessage();
        LOG.error("append outcome unknown, instance stops writing: {}", e.getMessage(), e);
        return new CommandException(
            503, "unavailable", "the event log did not confirm the write (" + e.getMessage() + "); this instance stops writing; retry with the same idempotency key after it restarts");
    }
  }

  private void stop(Health h, String why) {
    health = h;
    reason = why;
    LOG.warn("instance stops writing ({}): {}", h.name().toLowerCase(Locale.ROOT), why);
  }

  private static CommandException fencedRefusal(String reason) {
    return new CommandException(
        503, "fenced", "this control plane instance was replaced by a newer one (" + reason + "); nothing was written; retry: your request reaches the active instance");
  }
}
