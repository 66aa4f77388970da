-- What the edge passed over for a device: the entries of its line it listed in
-- expo-recent-failed-update-ids, newest first (CheckIn.skippedUpdateIds of the newest check-in).
ALTER TABLE devices ADD COLUMN skipped_update_ids text[] NOT NULL DEFAULT '{}';

-- Requests the edges refused (check-ins with outcome 'error': no channel, no runtime version, an unknown
-- keyid, ...), per app, reason (the error code), runtime version and embedded update id ('' when the
-- request had none), kept exact by the ingester in the same transaction as the rest of a batch: distinct
-- devices (a row each in refused_devices, so a device refused a thousand times counts once) and requests
-- (check-ins, with or without a client id). This is how a build that can never update ("sends no
-- channel") shows the first day.
CREATE TABLE refusals (
  app_id             text COLLATE "C" NOT NULL,
  reason             text COLLATE "C" NOT NULL,
  runtime_version    text COLLATE "C" NOT NULL,
  embedded_update_id text COLLATE "C" NOT NULL,
  devices            bigint      NOT NULL,
  requests           bigint      NOT NULL,
  first_seen         timestamptz NOT NULL,
  last_seen          timestamptz NOT NULL,
  PRIMARY KEY (app_id, reason, runtime_version, embedded_update_id)
);

-- The devices counted in refusals.devices: one row per device and refusal key, with when it was first refused.
CREATE TABLE refused_devices (
  app_id             text COLLATE "C" NOT NULL,
  reason             text COLLATE "C" NOT NULL,
  runtime_version    text COLLATE "C" NOT NULL,
  embedded_update_id text COLLATE "C" NOT NULL,
  client_id          text COLLATE "C" NOT NULL,
  first_seen         timestamptz NOT NULL,
  PRIMARY KEY (app_id, reason, runtime_version, embedded_update_id, client_id)
);
