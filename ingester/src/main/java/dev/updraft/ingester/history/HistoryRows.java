package dev.updraft.ingester.history;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.EventType;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of the history projection built from events: what an event does to its app's position (the
 * same policy as the control plane's fold: an event of an app never created, or at or below the app's
 * last sequence, is skipped), its audit row, and the row of a group it publishes. Pure functions and
 * plain values; {@link HistoryWriter} sends them.
 */
final class HistoryRows {
  private HistoryRows() {}

  /**
   * One app id's current incarnation as the projection knows it (mutable within one batch's transaction).
   *
   * @param createdAt the time of the incarnation's {@code app.created} (the control plane's {@code createdAt})
   */
  static final class AppPosition {
    final String appId;
    Instant createdAt;
    long lastSequence;
    boolean deleted;
    final List<String> keyIds = new ArrayList<>();
    boolean changed;

    AppPosition(String appId, Instant createdAt, long lastSequence, boolean deleted, List<String> keyIds) {
      this.appId = appId;
      this.createdAt = createdAt;
      this.lastSequence = lastSequence;
      this.deleted = deleted;
      this.keyIds.addAll(keyIds);
    }
  }

  /** What to do with an event. */
  enum Verdict {
    /** Project it. */
    APPLY,
    /** An {@code app.created} starts a new incarnation of the app id: reset the position, then apply. */
    CREATE,
    /** The app was never created, or was deleted: skip (the fold skips it too). */
    UNKNOWN_APP,
    /** At or below the app's last sequence: a redelivery or a duplicate; skip. */
    DUPLICATE,
    /** An {@code app.created} for an app that exists: skip. */
    EXISTS
  }

  /** What the projection does with an event of {@code type} at {@code sequence} for an app at {@code pos} (nullable). */
  static Verdict verdict(AppPosition pos, EventType type, long sequence) {
    boolean live = pos != null && !pos.deleted;
    if (type == EventType.APP_CREATED) {
      return live ? Verdict.EXISTS : Verdict.CREATE;
    }
    if (!live) {
      return Verdict.UNKNOWN_APP;
    }
    return sequence <= pos.lastSequence ? Verdict.DUPLICATE : Verdict.APPLY;
  }

  /** The verdict for an event of a type this build does not know (it still shows in the audit). */
  static Verdict verdict(AppPosition pos, Decoded.Unknown u) {
    if (pos == null || pos.deleted) {
      return Verdict.UNKNOWN_APP;
    }
    return u.sequence() <= pos.lastSequence ? Verdict.DUPLICATE : Verdict.APPLY;
  }

  /** Whether a key registration replaces a key of its keyid; the position's key ring follows it. */
  static boolean registerKey(AppPosition pos, SigningKeyRegistered k) {
    boolean replaced = k.joinsRing() && pos.keyIds.contains(k.keyId());
    if (!k.joinsRing()) {
      pos.keyIds.clear();
    }
    if (!pos.keyIds.contains(k.keyId())) {
      pos.keyIds.add(k.keyId());
    }
    return replaced;
  }

  /** One row of {@code history_audit}. */
  record AuditRow(
      String appId, Instant appCreatedAt, long sequence, String eventId, String type, Instant occurredAt, String actor,
      String summary, int partition, long offset) {

    Tuple tuple() {
      return Tuple.of(appId, utc(appCreatedAt), sequence, eventId, type, utc(occurredAt))
          .addString(text(actor)).addString(text(summary)).addInteger(partition).addLong(offset);
    }
  }

  static AuditRow audit(AppPosition pos, EventEnvelope e, AuditSummaries.Prior prior, int partition, long offset) {
    return new AuditRow(
        e.appId(), pos.createdAt, e.sequence(), e.eventId().toString(), e.type().wireName(), e.occurredAt(), e.actor(),
        AuditSummaries.of(e, prior), partition, offset);
  }

  static AuditRow audit(AppPosition pos, Decoded.Unknown u, int partition, long offset) {
    return new AuditRow(u.appId(), pos.createdAt, u.sequence(), null, u.type(), null, null, AuditSummaries.unknown(u.schemaVersion()),
        partition, offset);
  }

  /** One row of {@code history_groups}: a group as its publishing event made it. */
  record GroupRow(
      String appId, Instant appCreatedAt, String groupId, long sequence, String kind, String branch, String runtimeVersion,
      String message, String republishedFrom, String[] platforms, String[] updateIds, Instant publishedAt, String actor,
      String groupJson, Rollout rollout, int partition, long offset) {

    Tuple tuple() {
      Tuple t = Tuple.of(appId, utc(appCreatedAt), groupId, sequence, kind, branch)
          .addString(runtimeVersion).addString(text(message)).addString(republishedFrom)
          .addArrayOfString(platforms).addArrayOfString(updateIds).addOffsetDateTime(utc(publishedAt)).addString(text(actor))
          .addString(groupJson);
      RolloutGuard g = rollout == null ? null : rollout.guard();
      t.addString(rollout == null ? null : rollout.rolloutId())
          .addInteger(rollout == null ? null : rollout.percentage())
          .addString(rollout == null ? null : rollout.controlGroupId())
          .addString(rollout == null ? null : ACTIVE)
          .addOffsetDateTime(rollout == null ? null : utc(publishedAt))
          .addOffsetDateTime(rollout == null ? null : utc(publishedAt))
          .addDouble(g == null ? null : g.maxFailureRatePercent())
          .addInteger(g == null ? null : g.minDevices())
          .addLong(g == null ? null : g.windowSeconds())
          .addInteger(partition).addLong(offset);
      return t;
    }
  }

  /** A rollout's status while it runs (the control plane's {@code RolloutState.ACTIVE}). */
  static final String ACTIVE = "active";
  static final String FINISHED = "finished";
  static final String REVERTED = "reverted";

  static GroupRow group(AppPosition pos, EventEnvelope e, UpdateGroup g, int partition, long offset) {
    String[] platforms = new String[g.platforms().size()];
    String[] ids = new String[g.platforms().size()];
    for (int i = 0; i < platforms.length; i++) {
      PlatformUpdate p = g.platforms().get(i);
      platforms[i] = p.platform();
      ids[i] = p.updateId();
    }
    return new GroupRow(
        e.appId(), pos.createdAt, g.groupId(), e.sequence(), g.kind(), g.branch(), g.runtimeVersion(), g.message(),
        g.republishedFrom(), platforms, ids, e.occurredAt(), e.actor(), EventCodec.groupJson(g), g.rollout(), partition, offset);
  }

  /**
   * {@code s} as PostgreSQL's text can hold it: a NUL character (which no column of type text accepts, and which
   * the control plane let into messages, labels and reasons before it refused them) becomes U+FFFD. Without this an
   * event already in the log with one would fail its batch on every retry and stop the projection for good.
   */
  static String text(String s) {
    return s == null || s.indexOf('\0') < 0 ? s : s.replace('\0', '\uFFFD');
  }

  static OffsetDateTime utc(Instant t) {
    return t == null ? null : OffsetDateTime.ofInstant(t, ZoneOffset.UTC);
  }
}
