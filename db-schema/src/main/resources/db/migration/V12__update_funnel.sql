-- The download funnel per update: one row per (app, update, stage, device) with the first time the device was seen
-- at the stage (served: a manifest answer with the update; full / patch: the edge's launch-asset route sent the full
-- bundle / a bundle patch for it; launched: a check-in running it; failed: a check-in listing it among its recent
-- failed updates), and the platform it was seen on. Written by the ingester (dev.updraft.ingester.funnel) with
-- ON CONFLICT DO NOTHING: a stage reached again writes nothing. Read by the control plane's
-- GET /v1/apps/{app}/updates/{group}/funnel: distinct devices per stage, per platform and per hour.
CREATE TABLE update_funnel (
  app_id    text COLLATE "C" NOT NULL,
  update_id text COLLATE "C" NOT NULL,
  stage     text COLLATE "C" NOT NULL,
  client_id text COLLATE "C" NOT NULL,
  platform  text COLLATE "C" NOT NULL,
  first_at  timestamptz NOT NULL,
  PRIMARY KEY (app_id, update_id, stage, client_id)
);
