-- Indexes for the ingester's telemetry retention (--postgres-retention): its batches find the rows older
-- than the cutoff by these two, oldest first, instead of reading the whole table.
-- Only where an index costs the write path nothing per check-in: update_receipts rows are written once
-- (a repeat does nothing) and an update_hourly row's hour never changes, so updates of its counters stay
-- HOT. The tables whose time column moves with every check-in (devices.last_seen,
-- update_failures.last_reported) get none: an index there would make every one of those updates a non-HOT
-- update; retention walks them by primary key instead. Building these locks writes to the two tables
-- while it runs (long on a large update_receipts: the ingesters' batches wait and retry, nothing is lost).
CREATE INDEX update_receipts_first_served ON update_receipts (first_served);
CREATE INDEX update_hourly_hour ON update_hourly (hour);
