-- A count of the deletions from update_funnel (V12), for the ingesters' caches of funnel keys known to be written
-- (dev.updraft.ingester.funnel.FunnelKeys, --ingest-funnel-cache): an ingester skips a (app, update, stage, device) row
-- it knows is in the table, and trusts what it knows only while this count is the one it read when it learnt it. Every
-- statement that deletes at least one row, and every TRUNCATE, adds 1 in its own transaction (the triggers below), so
-- retention, an operator's DELETE and an older ingester's retention are all seen, whoever runs them. One row.
CREATE TABLE update_funnel_deletions (
  one        boolean PRIMARY KEY DEFAULT true CHECK (one),
  generation bigint  NOT NULL
);
INSERT INTO update_funnel_deletions (generation) VALUES (0);

CREATE FUNCTION update_funnel_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM FROM gone LIMIT 1;
    IF NOT FOUND THEN
      RETURN NULL; -- a DELETE that matched nothing: what the ingesters know is still true
    END IF;
  END IF;
  UPDATE update_funnel_deletions SET generation = generation + 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER update_funnel_deleted AFTER DELETE ON update_funnel REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION update_funnel_deleted();
CREATE TRIGGER update_funnel_truncated AFTER TRUNCATE ON update_funnel
  FOR EACH STATEMENT EXECUTE FUNCTION update_funnel_deleted();
