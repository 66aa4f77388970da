package dev.updraft.events;

/** Kafka topic names. Every deployment may put a prefix in front of them. */
public final class Topics {
  /** The event log: key = app id, kept forever, never compacted. */
  public static final String EVENTS = "updraft.events";
  /** Device check-ins: key = EAS client id, kept for days. */
  public static final String TELEMETRY = "updraft.telemetry";
  /** Errors apps report over OTLP/HTTP ({@link ErrorReport}): key = client id, kept like the telemetry. */
  public static final String ERRORS = "updraft.errors";
  /** Per-app snapshots of the folded state and per-partition markers: compacted (SnapshotCodec). */
  public static final String SNAPSHOTS = "updraft.snapshots";
  /**
   * A record header on {@link #TELEMETRY}: a check-in an edge sent to warm its own path to Kafka before it
   * reported ready (no device made it). Readers skip such records; its value is the edge id.
   */
  public static final String WARMUP_HEADER = "updraft-warmup";
  /**
   * A record header on {@link #EVENTS}: this event's app has this many more events in the same transaction
   * (its value, ASCII decimal), written on every event of a transaction but the app's last one. A reader that
   * publishes state per poll holds it until the last one is read, so nobody sees half a command (a key
   * replacement without its re-signed manifests). Absent: the transaction's last event of its app, or a writer
   * that predates the header (then each poll's state is published as read).
   */
  public static final String MORE_HEADER = "updraft-more";

  private Topics() {}

  public static String events(String prefix) {
    return prefix + EVENTS;
  }

  public static String snapshots(String prefix) {
    return prefix + SNAPSHOTS;
  }

  public static String telemetry(String prefix) {
    return prefix + TELEMETRY;
  }

  public static String errors(String prefix) {
    return prefix + ERRORS;
  }
}
