-- The ingester looks up one device's receipt of an update (app_id, update_id, client_id) for every
-- failure pair it inserts (the insights counters, V4). update_receipts_window (app_id, update_id,
-- first_served) answers the same two leading columns, and when the statistics do not know an update yet
-- (a new rollout: its id is in no most-common-values list; a table not analyzed yet) the planner finds it
-- as cheap as the primary key for that lookup and scans every receipt of the update for each failure:
-- seconds per batch at tens of thousands of receipts, growing with the rollout. Made partial on a
-- condition every time-window read states (first_served >= $x implies it) and a key lookup does not, the
-- window index can serve only the window reads, and the key lookups go by the primary key whatever the
-- statistics say. Building it locks writes to update_receipts while it runs (the ingesters' batches wait
-- and retry, nothing is lost).
CREATE INDEX update_receipts_window_v5 ON update_receipts (app_id, update_id, first_served)
  WHERE first_served IS NOT NULL;
DROP INDEX update_receipts_window;
ALTER INDEX update_receipts_window_v5 RENAME TO update_receipts_window;
