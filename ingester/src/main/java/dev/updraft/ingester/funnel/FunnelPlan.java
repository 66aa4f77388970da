package dev.updraft.ingester.funnel;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.Map;

/**
 * What one batch write does with its funnel rows ({@link FunnelKeys#plan}): which of them its ingester knew written
 * when the batch was handed to the writer, and, once the transaction has read the count of deletions
 * ({@link FunnelKeys#EPOCH_SQL}), the rows its insert sends: those it did not know, or all of them when the count is not
 * the one the ingester knew them under (funnel rows were deleted meanwhile: what it knew may be gone).
 *
 * <p>Made on the consumer thread, then used by the write's transaction on a Vert.x event loop and, after the commit, by
 * {@link FunnelKeys#written}: one thread after the other, never at once.
 */
public final class FunnelPlan {
  final List<Map.Entry<FunnelRows.Key, FunnelRows.Row>> rows;
  /** Per row its 128-bit hash (high, low); null when the ingester remembers no key ({@code --ingest-funnel-cache 0}). */
  final long[] hashes;
  /** Per row whether the ingester knew it written; null when it knew none. */
  final boolean[] known;
  final int knownCount;
  /** The count of deletions the known rows were learnt under; null when the ingester did not know it. */
  final FunnelKeys.Epoch planned;
  /** The count this write's transaction read; null until {@link #tuple} (or when it found none). */
  FunnelKeys.Epoch observed;
  /** Whether the insert sent every row, known or not. */
  boolean sentAll = true;

  FunnelPlan(List<Map.Entry<FunnelRows.Key, FunnelRows.Row>> rows, long[] hashes, boolean[] known, int knownCount,
      FunnelKeys.Epoch planned) {
    this.rows = rows;
    this.hashes = hashes;
    this.known = known;
    this.knownCount = knownCount;
    this.planned = planned;
  }

  /** Whether the transaction must read {@link FunnelKeys#EPOCH_SQL} before its insert (false: the cache is off). */
  public boolean readsEpoch() {
    return hashes != null;
  }

  /** Rows the batch showed. */
  public int rows() {
    return rows.size();
  }

  /** Rows the ingester knew written when the plan was made (the insert skips them unless funnel rows were deleted since). */
  public int known() {
    return knownCount;
  }

  /**
   * The insert's parameters, in key order; null when nothing is left to send.
   *
   * @param epoch what {@link FunnelKeys#EPOCH_SQL} returned in this transaction; null when it was not read
   */
  public Tuple tuple(RowSet<Row> epoch) {
    FunnelKeys.Epoch read = null;
    if (epoch != null && epoch.size() == 1) {
      Row r = epoch.iterator().next();
      read = new FunnelKeys.Epoch(r.getLong(0), r.getLong(1), r.getLong(2));
    }
    return tuple(read);
  }

  /** {@link #tuple(RowSet)} with the epoch read (null: none). */
  Tuple tuple(FunnelKeys.Epoch read) {
    observed = read;
    sentAll = knownCount == 0 || read == null || !read.equals(planned);
    return FunnelRows.tuple(rows, sentAll ? null : known, knownCount);
  }
}
