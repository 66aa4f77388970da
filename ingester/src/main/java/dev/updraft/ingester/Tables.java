package dev.updraft.ingester;

import static dev.updraft.ingester.Upsert.OnConflict.ADD;
import static dev.updraft.ingester.Upsert.OnConflict.GREATEST;
import static dev.updraft.ingester.Upsert.OnConflict.KEEP;
import static dev.updraft.ingester.Upsert.OnConflict.KEY;
import static dev.updraft.ingester.Upsert.OnConflict.LEAST;
import static dev.updraft.ingester.Upsert.OnConflict.REPLACE;

import dev.updraft.ingester.Upsert.OnConflict;

/**
 * The tables a batch writes (defined by the {@code db-schema} migrations), each as its table of
 * columns: one line per column says its name, how it is sent, what an existing row does with it and where
 * its value comes from. {@link BatchWriter} runs the statements generated from them.
 *
 * <p>A new check-in field stored per device is one more line in {@link #DEVICES} (after the migration that
 * adds the column); {@code BatchWriterIT} fails while a column of the migrated tables is written by no
 * line here.
 */
final class Tables {
  private Tables() {}

  /**
   * The device registry, one row per device holding its newest check-in. An update first copies the
   * row's counting key (update, platform, channel, source) into its {@code prev_*} columns, so that
   * {@code RETURNING} gives the old and the new key without reading the registry twice.
   */
  static final Upsert<Batch.Device> DEVICES =
      Upsert.<Batch.Device>into("devices", "d")
          .text("app_id", KEY, d -> d.key.appId())
          .text("client_id", KEY, d -> d.key.clientId())
          .text("platform", REPLACE, d -> d.latest.platform())
          .text("runtime_version", REPLACE, d -> d.latest.runtimeVersion())
          .text("channel", REPLACE, d -> d.latest.channel())
          .text("current_update_id", REPLACE, d -> d.latest.currentUpdateId())
          .text("embedded_update_id", REPLACE, d -> d.latest.embeddedUpdateId())
          .text("source", REPLACE, d -> Batch.source(d.latest))
          .millis("first_seen", LEAST, d -> d.first)
          .millis("last_seen", GREATEST, d -> d.last)
          .bigint("check_ins", ADD, d -> d.checkIns)
          .text("last_check_in_id", REPLACE, d -> d.latest.checkInId())
          .text("outcome", REPLACE, d -> d.latest.outcome())
          .text("reason", REPLACE, d -> d.latest.reason())
          .text("branch", REPLACE, d -> d.latest.branch())
          .bool("in_branch_rollout", REPLACE, d -> d.latest.inBranchRollout())
          .integer("rollout_bucket", REPLACE, d -> d.latest.rolloutBucket())
          .text("served_update_id", REPLACE, d -> d.latest.servedUpdateId())
          .text("served_group_id", REPLACE, d -> d.latest.servedGroupId())
          .ids("failed_update_ids", REPLACE, d -> d.latest.failedUpdateIds())
          .ids("skipped_update_ids", REPLACE, d -> d.latest.skippedUpdateIds())
          // a device sends its fatal error once, after the crash: later check-ins without one keep it
          .text("fatal_error", OnConflict.set("coalesce(EXCLUDED.fatal_error, {t}.fatal_error)"), d -> d.fatalError)
          .millis(
              "fatal_error_at",
              OnConflict.set("CASE WHEN EXCLUDED.fatal_error IS NULL THEN {t}.fatal_error_at ELSE EXCLUDED.fatal_error_at END"),
              d -> d.fatalError == null ? null : d.fatalErrorAt)
          .text("edge_id", REPLACE, d -> d.latest.edgeId())
          .alsoSet(
              "prev_update_id = d.current_update_id, prev_platform = d.platform, prev_channel = d.channel,"
                  + " prev_source = d.source")
          .returning(
              "d.app_id, d.current_update_id, d.platform, d.channel, d.source, d.prev_update_id, d.prev_platform,"
                  + " d.prev_channel, d.prev_source")
          .build();

  /** How many devices are on each counting key now; a {@link Move} adds to one. */
  static final Upsert<Move> DEVICE_COUNTS =
      Upsert.<Move>into("device_counts", "c")
          .text("app_id", KEY, Move::appId)
          .text("update_id", KEY, Move::updateId)
          .text("platform", KEY, Move::platform)
          .text("channel", KEY, Move::channel)
          .text("source", KEY, Move::source)
          .bigint("devices", ADD, Move::devices)
          .build();

  /** Devices that moved to ({@code devices} > 0) or from (< 0) one counting key of {@code device_counts}. */
  record Move(String appId, String updateId, String platform, String channel, String source, long devices) {}

  static final Upsert<Batch.Hour> UPDATE_HOURLY =
      Upsert.<Batch.Hour>into("update_hourly", "h")
          .text("app_id", KEY, h -> h.key.appId())
          .text("update_id", KEY, h -> h.key.updateId())
          .millis("hour", KEY, h -> h.key.hourMillis())
          .text("platform", KEY, h -> h.key.platform())
          .text("channel", KEY, h -> h.key.channel())
          .bigint("launches", ADD, h -> h.launches)
          .bigint("embedded_launches", ADD, h -> h.embeddedLaunches)
          .bigint("failure_reports", ADD, h -> h.failureReports)
          .bigint("served", ADD, h -> h.served)
          .build();

  static final Upsert<Batch.Failure> UPDATE_FAILURES =
      Upsert.<Batch.Failure>into("update_failures", "f")
          .text("app_id", KEY, f -> f.key.appId())
          .text("update_id", KEY, f -> f.key.updateId())
          .text("client_id", KEY, f -> f.key.clientId())
          .text("platform", KEEP, f -> f.platform)
          .millis("first_reported", LEAST, f -> f.first)
          .millis("last_reported", GREATEST, f -> f.last)
          .bigint("reports", ADD, f -> f.reports)
          .text("address_bucket", KEEP, f -> f.addressBucket)
          .build();

  /** A device's {@code Expo-Fatal-Error} reports of one update ({@link Batch#crashedUpdateId}), kept as its failures are. */
  static final Upsert<Batch.Failure> UPDATE_CRASHES =
      Upsert.<Batch.Failure>into("update_crashes", "k")
          .text("app_id", KEY, f -> f.key.appId())
          .text("update_id", KEY, f -> f.key.updateId())
          .text("client_id", KEY, f -> f.key.clientId())
          .text("platform", KEEP, f -> f.platform)
          .millis("first_reported", LEAST, f -> f.first)
          .millis("last_reported", GREATEST, f -> f.last)
          .bigint("reports", ADD, f -> f.reports)
          .text("address_bucket", KEEP, f -> f.addressBucket)
          .build();

  /**
   * A device's check-ins come in offset order, so the first receipt written is the first served: an
   * existing row is left alone ({@code DO NOTHING}: no row lock, no WAL for the many repeats).
   */
  static final Upsert<Batch.Receipt> UPDATE_RECEIPTS =
      Upsert.<Batch.Receipt>into("update_receipts", "r")
          .text("app_id", KEY, r -> r.key.appId())
          .text("update_id", KEY, r -> r.key.updateId())
          .text("client_id", KEY, r -> r.key.clientId())
          .text("platform", KEEP, r -> r.platform)
          .millis("first_served", KEEP, r -> r.first)
          .build();

  /**
   * The devices a batch saw refused, once per refusal key: an existing row is left alone, so that the
   * {@code RETURNING} of {@code BatchWriter.REFUSED_DEVICES_SQL} lists only devices new to their key.
   */
  static final Upsert<Refusals.RefusedDevice> REFUSED_DEVICES =
      Upsert.<Refusals.RefusedDevice>into("refused_devices", "rd")
          .text("app_id", KEY, d -> d.key().appId())
          .text("reason", KEY, d -> d.key().reason())
          .text("runtime_version", KEY, d -> d.key().runtimeVersion())
          .text("embedded_update_id", KEY, d -> d.key().embeddedUpdateId())
          .text("client_id", KEY, Refusals.RefusedDevice::clientId)
          .millis("first_seen", KEEP, Refusals.RefusedDevice::first)
          .returning("rd.app_id, rd.reason, rd.runtime_version, rd.embedded_update_id")
          .build();

  /** Refused requests and distinct devices per (app, reason, runtime version, embedded update). */
  static final Upsert<Refusals.Refusal> REFUSALS =
      Upsert.<Refusals.Refusal>into("refusals", "rf")
          .text("app_id", KEY, r -> r.key.appId())
          .text("reason", KEY, r -> r.key.reason())
          .text("runtime_version", KEY, r -> r.key.runtimeVersion())
          .text("embedded_update_id", KEY, r -> r.key.embeddedUpdateId())
          .bigint("devices", ADD, r -> r.devices)
          .bigint("requests", ADD, r -> r.requests)
          .millis("first_seen", LEAST, r -> r.first)
          .millis("last_seen", GREATEST, r -> r.last)
          .build();

  /** Patches served and failed per base and update (the launch-asset route's check-ins). */
  static final Upsert<PatchOutcomes.Outcome> PATCH_OUTCOMES =
      Upsert.<PatchOutcomes.Outcome>into("patch_outcomes", "po")
          .text("app_id", KEY, r -> r.key.appId())
          .text("base_update_id", KEY, r -> r.key.baseUpdateId())
          .text("update_id", KEY, r -> r.key.updateId())
          .text("platform", KEY, r -> r.key.platform())
          .bool("from_embedded", Upsert.OnConflict.set("{t}.{c} OR EXCLUDED.{c}"), r -> r.fromEmbedded)
          .bigint("served", ADD, r -> r.served)
          .bigint("failed", ADD, r -> r.failed)
          .millis("last_seen", GREATEST, r -> r.last)
          .build();

  /** Records that are not check-ins; a replayed one is already there. */
  static final Upsert<Batch.Reject> INGEST_REJECTS =
      Upsert.<Batch.Reject>into("ingest_rejects", "j")
          .text("topic", KEY, r -> r.partition().topic())
          .integer("kafka_partition", KEY, r -> r.partition().partition())
          .bigint("record_offset", KEY, Batch.Reject::offset)
          .text("error", KEEP, Batch.Reject::error)
          .text("value_excerpt", KEEP, Batch.Reject::excerpt)
          .build();
}
