-- Crashes devices reported with the Expo-Fatal-Error header (issue 42), one row per (app, update, client) as in
-- update_failures: the update is the check-in's current update (expo-current-update-id), except that a check-in whose
-- current update is the embedded one, or that lists recent failed updates (the crash was the failed launch, already
-- in update_failures), writes no row. first/last_reported: the device's first and last such check-in; reports: how
-- many; address_bucket: the keyed hash of the /24 or /48 of its first one (never the address; an existing row keeps
-- its first bucket; NULL from edges that knew no peer address). The rollout guard's crash check (CrashGuard) counts
-- them with the fatal OTLP reports, from served devices only, at most --guard-max-failures-per-address per bucket.
-- No time index: last_reported moves with every report; retention walks the table by primary key.
CREATE TABLE update_crashes (
  app_id         text COLLATE "C" NOT NULL,
  update_id      text COLLATE "C" NOT NULL,
  client_id      text COLLATE "C" NOT NULL,
  platform       text COLLATE "C" NOT NULL,
  first_reported timestamptz NOT NULL,
  last_reported  timestamptz NOT NULL,
  reports        bigint      NOT NULL,
  address_bucket text COLLATE "C",
  PRIMARY KEY (app_id, update_id, client_id)
);
