-- Counters the insights and the rollout guard read instead of counting update_receipts and
-- update_failures per request (a group's numbers took seconds at a few million receipts). Kept exact by
-- the ingester in the same transaction as the rows they count: only rows a batch actually inserts (a new
-- (update, device) pair) change them, so a redelivered check-in counts nothing twice. Retention deletes
-- the rows they count in the same transaction as it takes them out of the counters, so, as before, they
-- count the rows that remain ("received" = devices served within the retention, and so on).
-- The platform of a count is that of the row counted; a pair's received_failed and failed (per minute)
-- count under the receipt's platform.

-- Per update and platform: rows of update_receipts (received), rows of update_failures (failed), and
-- devices that have both (received_failed), so the devices that received it or reported it failed are
-- received + failed - received_failed.
CREATE TABLE update_device_totals (
  app_id          text COLLATE "C" NOT NULL,
  update_id       text COLLATE "C" NOT NULL,
  platform        text COLLATE "C" NOT NULL,
  received        bigint NOT NULL,
  failed          bigint NOT NULL,
  received_failed bigint NOT NULL,
  PRIMARY KEY (app_id, update_id, platform)
);

-- Per update, minute of first_served (whole UTC minutes) and platform: receipts first served within the
-- minute (received) and, of those, devices with an update_failures row for the update (failed). The
-- guard sums the whole minutes of its window here and counts only its first partial minute row by row.
CREATE TABLE receipt_minutes (
  app_id    text COLLATE "C" NOT NULL,
  update_id text COLLATE "C" NOT NULL,
  minute    timestamptz NOT NULL,
  platform  text COLLATE "C" NOT NULL,
  received  bigint NOT NULL,
  failed    bigint NOT NULL,
  PRIMARY KEY (app_id, update_id, minute, platform)
);

-- Backfill from the rows already there (this transaction locks the two tables' writers out meanwhile).
INSERT INTO update_device_totals (app_id, update_id, platform, received, failed, received_failed)
SELECT app_id, update_id, platform, sum(received), sum(failed), sum(received_failed) FROM (
  SELECT r.app_id, r.update_id, r.platform, 1 AS received, 0 AS failed,
         CASE WHEN f.client_id IS NULL THEN 0 ELSE 1 END AS received_failed
    FROM update_receipts r
    LEFT JOIN update_failures f ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id
  UNION ALL
  SELECT app_id, update_id, platform, 0, 1, 0 FROM update_failures
) x GROUP BY app_id, update_id, platform;

INSERT INTO receipt_minutes (app_id, update_id, minute, platform, received, failed)
SELECT r.app_id, r.update_id, to_timestamp(floor(extract(epoch FROM r.first_served) / 60) * 60), r.platform,
       count(*), count(f.client_id)
  FROM update_receipts r
  LEFT JOIN update_failures f ON f.app_id = r.app_id AND f.update_id = r.update_id AND f.client_id = r.client_id
 GROUP BY 1, 2, 3, 4;
