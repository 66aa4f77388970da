-- The history projection (the ingester's second consumer, of updraft.events): the audit log and every
-- update group an app ever had, so that the control plane holds only what its commands need (the live
-- groups) while the read API still shows everything a publisher could see before.
--
-- An app id may be deleted and created again; each life of it is an incarnation, named by the time of its
-- app.created event (app_created_at: the control plane knows it as the app's createdAt, also after a start
-- from a snapshot). Rows of an earlier incarnation stay (the audit is history) but are not shown for the new app.

-- Where the projection is in updraft.events, written in the same transaction as the rows (exactly once).
CREATE TABLE history_offsets (
  topic text NOT NULL,
  kafka_partition int NOT NULL,
  next_offset bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, kafka_partition)
);

-- The current incarnation of each app id and the last sequence projected for it (a redelivered or
-- duplicate event at or below it is skipped, as the control plane's fold skips it); key_ids: its key
-- ring's keyids (the audit says whether a registration replaced a key of its keyid).
CREATE TABLE history_apps (
  app_id text PRIMARY KEY,
  app_created_at timestamptz NOT NULL,
  last_sequence bigint NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  key_ids text[] NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per event of an app: what GET /v1/apps/{app}/audit shows, and where the event is in the log.
CREATE TABLE history_audit (
  app_id text NOT NULL,
  app_created_at timestamptz NOT NULL,
  sequence bigint NOT NULL,
  event_id text,
  type text NOT NULL,
  occurred_at timestamptz,
  actor text,
  summary text NOT NULL,
  kafka_partition int NOT NULL,
  kafka_offset bigint NOT NULL,
  PRIMARY KEY (app_id, app_created_at, sequence)
);

-- One row per update group: its payload as published (group_json, the event's group object, enough to
-- show and republish it) and what later events changed (its rollout and guard, revert, pin, deletion).
CREATE TABLE history_groups (
  app_id text NOT NULL,
  app_created_at timestamptz NOT NULL,
  group_id text NOT NULL,
  sequence bigint NOT NULL,
  kind text NOT NULL,
  branch text NOT NULL,
  runtime_version text NOT NULL,
  message text,
  republished_from text,
  platforms text[] NOT NULL,
  update_ids text[] NOT NULL,
  published_at timestamptz NOT NULL,
  actor text,
  group_json text NOT NULL,
  rollout_id text,
  rollout_percentage int,
  rollout_control_group_id text,
  rollout_status text,
  rollout_started_at timestamptz,
  rollout_changed_at timestamptz,
  guard_max_failure_rate_percent double precision,
  guard_min_devices int,
  guard_window_seconds bigint,
  reverted_by text,
  pinned boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  deleted_sequence bigint,
  kafka_partition int NOT NULL,
  kafka_offset bigint NOT NULL,
  PRIMARY KEY (app_id, app_created_at, group_id)
);

-- The list reads, newest first, of groups not deleted: all of an app's, one branch's, one line's.
CREATE INDEX history_groups_by_sequence ON history_groups (app_id, app_created_at, sequence DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX history_groups_by_branch ON history_groups (app_id, app_created_at, branch, sequence DESC)
  WHERE deleted_at IS NULL;
CREATE INDEX history_groups_by_line ON history_groups (app_id, app_created_at, branch, runtime_version, sequence DESC)
  WHERE deleted_at IS NULL;
