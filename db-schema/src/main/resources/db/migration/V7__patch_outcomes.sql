-- Bundle patches the edges served, and those devices could not use (a full download of the same bundle by
-- the same device right after the 226), per app, base update id (a registered build's embedded update id is
-- its base), update patched to and platform; from_embedded: the base is the device's embedded update. Written
-- by the ingester from the launch-asset route's check-ins (outcome 'patch'); read by the control plane (the
-- counts on GET .../patches and GET .../builds, and the base it stops patching from).
CREATE TABLE patch_outcomes (
  app_id         text COLLATE "C" NOT NULL,
  base_update_id text COLLATE "C" NOT NULL,
  update_id      text COLLATE "C" NOT NULL,
  platform       text COLLATE "C" NOT NULL,
  from_embedded  boolean     NOT NULL,
  served         bigint      NOT NULL,
  failed         bigint      NOT NULL,
  last_seen      timestamptz NOT NULL,
  PRIMARY KEY (app_id, base_update_id, update_id, platform)
);
