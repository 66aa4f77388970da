package dev.updraft.ingester;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.common.SharedFlags;
import java.time.Duration;

/**
 * Every flag of {@code updraft ingest}, declared once ({@link FlagTable}): {@link IngesterConfig} reads its values
 * through these constants, and {@code --help} and the ingester's table in docs/operations.md are made from
 * {@link #TABLE}.
 */
public final class IngesterFlags {
  private IngesterFlags() {}

  // Declared here, not in IngesterConfig: this class may only read compile-time constants of IngesterConfig, whose
  // FLAGS is this TABLE's names (either class may be initialized first).
  static final Duration DEFAULT_BATCH_WAIT = Duration.ofMillis(500);
  static final Duration DEFAULT_LINGER = Duration.ofMillis(250);

  private static final FlagTable.Builder T = FlagTable.builder().include(SharedFlags.kafka()).include(SharedFlags.postgres());

  static final Flag<String> CONSUMER_GROUP = T.text("consumer-group", IngesterConfig.DEFAULT_CONSUMER_GROUP, "The same for every"
      + " ingester of a deployment: the partitions of `updraft.telemetry` are spread over them.");
  static final Flag<String> HISTORY_CONSUMER_GROUP = T.custom("history-consumer-group", "`<prefix>updraft-history`", "text",
      "The history projection's group (the audit log and the group history, from `updraft.events`); the same for every ingester of a"
          + " deployment, never the telemetry's.");
  static final Flag<Integer> INGEST_BATCH_SIZE = T.integer("ingest-batch-size", IngesterConfig.DEFAULT_BATCH_SIZE, 1, 100_000,
      "check-ins", "Most check-ins written in one PostgreSQL transaction.");
  static final Flag<Duration> INGEST_BATCH_WAIT = T.duration("ingest-batch-wait", DEFAULT_BATCH_WAIT, null, null,
      "Longest (1ms–60s) a check-in waits in a batch while the previous batch is being written (with none being written,"
          + " `--ingest-linger` applies).");
  static final Flag<Duration> INGEST_LINGER = T.duration("ingest-linger", DEFAULT_LINGER, null, null, "How long"
      + " (0ms–10s) a batch gathers check-ins before it is written when no write is running (a full batch is written at once; `0ms`:"
      + " at the end of each poll). Trades lag for PostgreSQL's cost: every transaction has a fixed cost (commit and fsync, the offset"
      + " and counter rows) that its check-ins share, so at a live-fleet rate a longer linger means fewer, larger transactions and"
      + " less CPU per check-in, and each check-in reaches PostgreSQL up to the linger later. The linger counts from when the edge"
      + " sent the check-in (its Kafka timestamp), so the time it spent in the edge's producer and in a fetch (the consumer lets"
      + " Kafka gather for up to the linger, at most 500 ms) is part of it, not added to it; an edge clock behind the ingester's only"
      + " makes batches written sooner. `updraft dev` takes it too.");
  static final Flag<Integer> INGEST_MAX_ATTEMPTS = T.integer("ingest-max-attempts", IngesterConfig.DEFAULT_MAX_ATTEMPTS, 1, 100,
      "attempts", "Writes of a batch that PostgreSQL refuses for its data (SQLSTATE class 22, 23 or 54: a value out of range, a"
          + " constraint, an index row too large) before the ingester finds the records it refuses alone and sets them aside in"
          + " `ingest_dead_letters`, storing the rest: see [Dead letters](#dead-letters). With the backoff (100 ms doubling) the"
          + " default splits such a batch after about 1.5 s. An outage (PostgreSQL down, a lost connection, a timeout) never counts.");
  static final Flag<Integer> INGEST_CONSUMERS = T.integer("ingest-consumers", IngesterConfig.DEFAULT_CONSUMERS, 1, 64, "threads",
      "Kafka consumers (threads, each writing its own batches) in this process.");
  static final Flag<Integer> INGEST_FUNNEL_CACHE = T.integer("ingest-funnel-cache", IngesterConfig.DEFAULT_FUNNEL_CACHE, 0,
      50_000_000, "keys", "Download funnel keys (app, update, stage, device) this process remembers as written to `update_funnel`,"
          + " shared by its consumers: a check-in reaching a stage its device is known to have reached sends PostgreSQL nothing for"
          + " it (`updraft_ingest_funnel_rows_skipped_total`). The least recently used go first; about 21 bytes of heap per key"
          + " once full (a keyed 128-bit hash; the default, 2,000,000, takes about 43 MB), grown as keys come. Any deletion from"
          + " `update_funnel` (retention, by any ingester, or by hand) makes every ingester forget what it knew at its next batch."
          + " 0: remember none, send every row.");
  static final Flag<String> BIND = T.text("bind", IngesterConfig.DEFAULT_BIND, "Address of the HTTP server of `/metrics` and `/healthz`.");

  static {
    T.include(SharedFlags.metrics(Integer.toString(IngesterConfig.DEFAULT_METRICS_PORT), "port (0 = none)",
        "`/metrics` and `/healthz`; 0 runs no HTTP server."));
    T.include(RetentionConfig.table());
  }

  /** Every flag of the ingester, in the order {@code --help} and the docs show them. */
  public static final FlagTable TABLE = T.build();
}
