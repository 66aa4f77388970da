package dev.updraft.ingester.funnel;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The funnel keys (app, update, stage, device) an ingester knows to be in {@code update_funnel}, so that a batch does
 * not send PostgreSQL the rows it would keep as they are anyway ({@code ON CONFLICT DO NOTHING}): a device checks in
 * again and again on the update it runs, and each check-in would otherwise send its {@code launched} row again, for
 * PostgreSQL to look up in the primary key and leave. One per process, shared by its consumers
 * ({@code --ingest-funnel-cache} keys at most, {@link KeyTable}; a key is kept as a keyed 128-bit hash, {@link KeyHash}).
 *
 * <h2>What is known, and how long</h2>
 * <ul>
 *   <li>A key is learnt only once the transaction that inserted it (or found it there) has committed
 *       ({@link #written}); a write that fails or is refused teaches nothing.
 *   <li>Rows are never changed, only deleted: by retention ({@code --postgres-retention-funnel}) or by hand. Every
 *       deleting statement adds 1 to {@code update_funnel_deletions.generation} in its own transaction (triggers of
 *       V14, so also an older ingester's retention and an operator's {@code DELETE} or {@code TRUNCATE}). Each write reads
 *       that count, with what tells a restored database or a restarted server from the one it was read from, in its
 *       transaction before the insert ({@link #EPOCH_SQL}). What the ingester knows was learnt under one such epoch; a write that reads another one
 *       sends every row of its batch, and at its commit the ingester forgets what it knew and starts again from that
 *       write's rows. So a row deleted before a write read the count is written again by it, as if nothing were known.
 *   <li>Partitions moving between ingesters change nothing: one device's check-ins are on one partition, a key learnt
 *       stays true wherever its device goes next (an ingester that never saw it sends it once, PostgreSQL keeps the
 *       first row), and a key the ingester keeps for a partition it lost only takes room until it is forgotten.
 * </ul>
 * A row is skipped only when PostgreSQL already holds it, so {@code first_at} is what the insert would have kept: the
 * first time written. One case differs from sending every row: a deletion that commits while a write runs (after its
 * transaction read the count, before its insert) may remove a row the write skipped; the device's next check-in at that
 * stage writes it again. Without the cache the same happens when the insert finds the row an instant before it goes.
 *
 * <p>Thread-safe: {@link #plan} (consumer threads) and {@link #written} (event loops) take the lock for their lookups.
 */
public final class FunnelKeys {
  /**
   * The epoch: the count of deletions from {@code update_funnel} (V14), the transaction that last wrote it (a restored
   * dump writes it anew) and the server's start in microseconds (a restored base backup starts a server).
   */
  public static final String EPOCH_SQL = "SELECT generation, xmin::text::bigint,"
      + " (extract(epoch FROM pg_postmaster_start_time()) * 1000000)::bigint FROM update_funnel_deletions";

  /** Remembers nothing: every row is sent. */
  public static final FunnelKeys OFF = new FunnelKeys(0);

  /** Deletions counted, by one version of the row, under one server start. */
  record Epoch(long generation, long writtenBy, long startedMicros) {}

  private final long k0;
  private final long k1;
  private final long k2;
  private final long k3;
  /** Null when off. */
  private final KeyTable table;
  /** The epoch what the table holds was learnt under; null: none yet (nothing is known). */
  private Epoch epoch;

  /** @param bound keys remembered at most; 0 remembers none */
  public FunnelKeys(int bound) {
    this(bound, new SecureRandom());
  }

  FunnelKeys(int bound, Random keys) {
    if (bound < 0) {
      throw new IllegalArgumentException("funnel keys remembered must be 0 or more: bound=" + bound);
    }
    this.k0 = keys.nextLong();
    this.k1 = keys.nextLong();
    this.k2 = keys.nextLong();
    this.k3 = keys.nextLong();
    this.table = bound == 0 ? null : new KeyTable(bound);
  }

  /** The rows of {@code batch} and which of them are known written; null when the batch has none. */
  public FunnelPlan plan(FunnelRows batch) {
    if (batch.rows() == 0) {
      return null;
    }
    List<Map.Entry<FunnelRows.Key, FunnelRows.Row>> sorted = batch.sorted();
    if (table == null) {
      return new FunnelPlan(sorted, null, null, 0, null);
    }
    int n = sorted.size();
    long[] hashes = new long[2 * n];
    KeyHash hash = new KeyHash(k0, k1, k2, k3);
    FunnelRows.Key previous = null;
    for (int i = 0; i < n; i++) {
      FunnelRows.Key k = sorted.get(i).getKey();
      if (previous == null || !k.stage().equals(previous.stage()) || !k.updateId().equals(previous.updateId())
          || !k.appId().equals(previous.appId())) {
        hash.prefix(k.appId(), k.updateId(), k.stage()); // key order: the rows of one (app, update, stage) come together
      }
      hash.client(k.clientId());
      hashes[2 * i] = hash.hi;
      hashes[2 * i + 1] = hash.lo;
      previous = k;
    }
    boolean[] known = new boolean[n];
    int count = 0;
    Epoch planned;
    synchronized (this) {
      planned = epoch;
      if (planned != null) {
        for (int i = 0; i < n; i++) {
          if (table.contains(hashes[2 * i], hashes[2 * i + 1])) {
            known[i] = true;
            count++;
          }
        }
      }
    }
    return new FunnelPlan(sorted, hashes, known, count, planned);
  }

  /**
   * Learns the rows of a write whose transaction committed: they are all in PostgreSQL.
   *
   * @return the rows its insert skipped
   */
  public long written(FunnelPlan p) {
    if (table == null) {
      return 0;
    }
    synchronized (this) {
      if (p.observed == null) {
        // the count could not be read: deletions would go unseen, so nothing is known
        table.clear();
        epoch = null;
        return 0;
      }
      if (!p.observed.equals(epoch)) {
        table.clear(); // rows were deleted (or the server changed) since what is held was learnt
        epoch = p.observed;
      }
      for (int i = 0; i < p.rows.size(); i++) {
        table.add(p.hashes[2 * i], p.hashes[2 * i + 1]);
      }
    }
    return p.sentAll ? 0 : p.knownCount;
  }

  /** Keys remembered now (a key used again lately may count twice). */
  public synchronized int size() {
    return table == null ? 0 : table.size();
  }
}
