-- Telemetry written by the ingester (dev.updraft.controlplane.ingest) and read by insights.
-- Conventions: times are the edge's answer time of the check-in (CheckIn.atEpochMillis), never ingest
-- time. Key columns are COLLATE "C": ids compare byte-wise, which keeps B-tree work cheap at tens of
-- thousands of upserts per second whatever the database's locale. In the aggregate tables an absent value (no channel, no current update) is '' so that it can be
-- part of a primary key; in devices it is NULL.

-- The consumed position per partition, written in the same transaction as the data it covers. This,
-- not Kafka's committed offsets, is where an ingester resumes after a restart or a rebalance.
CREATE TABLE ingest_offsets (
  topic           text COLLATE "C" NOT NULL,
  kafka_partition integer     NOT NULL,
  next_offset     bigint      NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, kafka_partition)
);

-- Records that could not be decoded as a check-in (dead letters), kept for an operator to look at.
CREATE TABLE ingest_rejects (
  topic           text COLLATE "C" NOT NULL,
  kafka_partition integer     NOT NULL,
  record_offset   bigint      NOT NULL,
  error           text        NOT NULL,
  value_excerpt   text,
  rejected_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, kafka_partition, record_offset)
);

-- The device registry: one row per (app, client id), holding the newest check-in of the device (the one
-- with the highest offset: a device's check-ins share a partition, so offset order is arrival order).
CREATE TABLE devices (
  app_id             text COLLATE "C" NOT NULL,
  client_id          text COLLATE "C" NOT NULL,
  platform           text        NOT NULL,
  runtime_version    text,
  channel            text,
  current_update_id  text,
  embedded_update_id text,
  -- 'embedded' (current = embedded), 'ota' (another update), 'unknown' (no current update reported)
  source             text        NOT NULL,
  first_seen         timestamptz NOT NULL,
  last_seen          timestamptz NOT NULL,
  check_ins          bigint      NOT NULL,
  last_check_in_id   text        NOT NULL,
  -- what it was last served and why (CheckIn.outcome / reason codes)
  outcome            text,
  reason             text,
  branch             text,
  in_branch_rollout  boolean     NOT NULL,
  rollout_bucket     integer,
  served_update_id   text,
  served_group_id    text,
  failed_update_ids  text[]      NOT NULL,
  -- the last fatal error the device sent (it sends one once, after the crash) and when
  fatal_error        text,
  fatal_error_at     timestamptz,
  edge_id            text,
  -- the counting key (device_counts) the row had before its last write: lets one statement move the
  -- device from its old count to its new one without reading the row twice
  prev_update_id     text,
  prev_platform      text,
  prev_channel       text,
  prev_source        text,
  PRIMARY KEY (app_id, client_id)
) WITH (fillfactor = 85); -- room for HOT updates: most check-ins change no indexed column

-- How many devices of the registry are on each update now, kept exact by the ingester in the same
-- transaction as the device rows (each device leaves its old key and joins its new one).
CREATE TABLE device_counts (
  app_id    text COLLATE "C" NOT NULL,
  update_id text COLLATE "C" NOT NULL,
  platform  text COLLATE "C" NOT NULL,
  channel   text COLLATE "C" NOT NULL,
  source    text COLLATE "C" NOT NULL,
  devices   bigint NOT NULL,
  PRIMARY KEY (app_id, update_id, platform, channel, source)
);

-- Per update and hour: launches (check-ins whose current update is it, with or without a client id),
-- of which on the embedded bundle; check-ins that listed it in expo-recent-failed-update-ids; check-ins
-- that were served it.
CREATE TABLE update_hourly (
  app_id            text COLLATE "C" NOT NULL,
  update_id         text COLLATE "C" NOT NULL,
  hour              timestamptz NOT NULL,
  platform          text COLLATE "C" NOT NULL,
  channel           text COLLATE "C" NOT NULL,
  launches          bigint      NOT NULL,
  embedded_launches bigint      NOT NULL,
  failure_reports   bigint      NOT NULL,
  served            bigint      NOT NULL,
  PRIMARY KEY (app_id, update_id, hour, platform, channel)
);
CREATE INDEX update_hourly_channel ON update_hourly (app_id, channel, hour);

-- Devices that reported an update failed (distinct devices: one row each).
CREATE TABLE update_failures (
  app_id         text COLLATE "C" NOT NULL,
  update_id      text COLLATE "C" NOT NULL,
  client_id      text COLLATE "C" NOT NULL,
  platform       text COLLATE "C" NOT NULL,
  first_reported timestamptz NOT NULL,
  last_reported  timestamptz NOT NULL,
  reports        bigint      NOT NULL,
  PRIMARY KEY (app_id, update_id, client_id)
);

-- Devices that were served an update, with the first time (the first check-in, in offset order, that
-- was served it): what the rollout guard counts.
CREATE TABLE update_receipts (
  app_id       text COLLATE "C" NOT NULL,
  update_id    text COLLATE "C" NOT NULL,
  client_id    text COLLATE "C" NOT NULL,
  platform     text COLLATE "C" NOT NULL,
  first_served timestamptz NOT NULL,
  PRIMARY KEY (app_id, update_id, client_id)
);
CREATE INDEX update_receipts_window ON update_receipts (app_id, update_id, first_served);
