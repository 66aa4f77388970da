package dev.updraft.ingester;

import dev.updraft.events.CheckIn;
import io.vertx.sqlclient.Tuple;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which keyid of their app's key ring devices asked for ({@code CheckIn.keyId}), folded per batch into one row per
 * (app, keyid, device) with the newest time, and written by one upsert into {@code key_asks} (V9). The control plane
 * reads it before it retires a key. A request without a client id is kept under client id {@code ""} (it says
 * when the keyid was last asked, and is never counted as a device).
 *
 * <p>An existing row is only rewritten when the batch's time is an hour or more after the stored one
 * ({@link #REFRESH}): a device asks on every launch, and rewriting its row each time would add a row write per
 * launch to the ingester; the last asked time is exact to the hour, which is what a window of days needs.
 *
 * <p>Not thread-safe: filled on the consumer thread with its {@link Batch}, then only read by the writer.
 */
final class KeyAsks {
  /** How much later a device must ask for its row to be rewritten. */
  static final String REFRESH = "1 hour";

  /** Key order (app, keyid, client), so concurrent writers lock rows in one order. */
  static final String SQL =
      "INSERT INTO key_asks AS k (app_id, key_id, client_id, last_asked)"
          + " SELECT unnest($1::text[]), unnest($2::text[]), unnest($3::text[]), to_timestamp(unnest($4::bigint[])::float8 / 1000)"
          + " ON CONFLICT (app_id, key_id, client_id) DO UPDATE SET last_asked = EXCLUDED.last_asked"
          + " WHERE k.last_asked < EXCLUDED.last_asked - interval '" + REFRESH + "'";

  private final Map<String, Map<String, Map<String, Long>>> asks = new HashMap<>(4);
  private int rows;

  /** Notes the keyid {@code c} asked for, if any (a cleaned check-in: client id lower case or null). */
  void add(CheckIn c) {
    String keyId = c.keyId();
    if (keyId == null) {
      return;
    }
    Map<String, Long> devices = asks.computeIfAbsent(c.appId(), a -> new HashMap<>(4)).computeIfAbsent(keyId, k -> new HashMap<>());
    String client = c.clientId() == null ? "" : c.clientId();
    Long before = devices.get(client);
    if (before == null) {
      rows++;
      devices.put(client, c.atEpochMillis());
    } else if (c.atEpochMillis() > before) {
      devices.put(client, c.atEpochMillis());
    }
  }

  /** How many rows the upsert writes at most. */
  int rows() {
    return rows;
  }

  /** The upsert's parameters in key order, or null when no check-in of the batch asked for a key. */
  Tuple tuple() {
    if (rows == 0) {
      return null;
    }
    String[] app = new String[rows];
    String[] key = new String[rows];
    String[] client = new String[rows];
    Long[] at = new Long[rows];
    int i = 0;
    for (Map.Entry<String, Map<String, Map<String, Long>>> a : new TreeMap<>(asks).entrySet()) {
      for (Map.Entry<String, Map<String, Long>> k : new TreeMap<>(a.getValue()).entrySet()) {
        for (Map.Entry<String, Long> d : new TreeMap<>(k.getValue()).entrySet()) {
          app[i] = a.getKey();
          key[i] = k.getKey();
          client[i] = d.getKey();
          at[i] = d.getValue();
          i++;
        }
      }
    }
    return Tuple.of(app, key, client, at);
  }
}
