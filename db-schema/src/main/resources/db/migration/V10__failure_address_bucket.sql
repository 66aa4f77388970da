-- The address bucket (CheckIn.addressBucket: a keyed hash of the /24 or /48 the request came from, never the
-- address) of a device's first report that an update failed, kept with the row (an existing row keeps its
-- first bucket). The rollout guard counts at most --guard-max-failures-per-address failing devices per bucket
-- and window, so one network cannot forge a revert with fresh client ids. NULL: reported by an edge older than
-- check-in layout 3 (or one that knew no peer address); the guard does not cap those.
ALTER TABLE update_failures ADD COLUMN address_bucket text COLLATE "C";
