-- Which keyid of an app's key ring each device asks for (expo-expect-signature), written by the ingester from the
-- check-ins' keyId: one row per (app, keyid, device), client_id '' for requests that sent no EAS-Client-ID (never
-- counted as a device). last_asked is refreshed when a batch sees the device ask an hour or more after the stored
-- time (not on every launch: a write per launch would double the ingester's row writes), so it is exact to the
-- hour. Read by the control plane before it retires a key: a keyid devices asked for within its window
-- (--key-in-use-days) is refused unless forced.
CREATE TABLE key_asks (
  app_id     text COLLATE "C" NOT NULL,
  key_id     text COLLATE "C" NOT NULL,
  client_id  text COLLATE "C" NOT NULL,
  last_asked timestamptz NOT NULL,
  PRIMARY KEY (app_id, key_id, client_id)
);
