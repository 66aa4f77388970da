-- Errors apps report over OTLP/HTTP (issue 42), written by the ingester from updraft.errors. One row per report
-- (report_id: the edge's id, so a record read twice is counted once), grouped by group_key: a hash of the error
-- type and the stack trace's top frame without line and column (ErrorGroupKey), so that the same error in the next
-- update's bundle is the same group. update_id NULL: the app ran its embedded bundle or set no expo.update.id.
-- client_id NULL: the app set no expo.client.id (never counted as a device). address_bucket: the keyed hash of the
-- /24 or /48 the report came from (never the address).
CREATE TABLE error_reports (
  report_id       text COLLATE "C" PRIMARY KEY,
  app_id          text COLLATE "C" NOT NULL,
  update_id       text COLLATE "C",
  group_key       text COLLATE "C" NOT NULL,
  client_id       text COLLATE "C",
  address_bucket  text COLLATE "C",
  platform        text COLLATE "C",
  channel         text COLLATE "C",
  runtime_version text COLLATE "C",
  source          text COLLATE "C" NOT NULL,
  fatal           boolean NOT NULL,
  message         text,
  stacktrace      text,
  edge_id         text COLLATE "C",
  occurred_at     timestamptz NOT NULL,
  received_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX error_reports_by_update ON error_reports (app_id, update_id, group_key);
CREATE INDEX error_reports_by_time ON error_reports (received_at);

-- One row per error group of an app: its type, top frame, when and in which update it was first seen, and the first
-- report's message as a sample. Counts per update come from error_reports.
CREATE TABLE error_groups (
  app_id          text COLLATE "C" NOT NULL,
  group_key       text COLLATE "C" NOT NULL,
  error_type      text NOT NULL,
  top_frame       text NOT NULL,
  sample_message  text,
  first_update_id text COLLATE "C",
  first_seen      timestamptz NOT NULL,
  last_seen       timestamptz NOT NULL,
  PRIMARY KEY (app_id, group_key)
);

