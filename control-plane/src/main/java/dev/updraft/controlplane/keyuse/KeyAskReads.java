package dev.updraft.controlplane.keyuse;

import dev.updraft.controlplane.telemetry.TelemetryDb;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Reads {@code key_asks} (written by the ingester from the check-ins' {@code keyId}): per keyid of an app, when a
 * device last asked for it within the window ({@code --key-in-use-days}) and how many distinct devices did. Only asks
 * since the app was created count (an app deleted and created again under its id starts afresh). Thread-safe.
 */
public final class KeyAskReads {
  /**
   * Asks within the window since the app's creation, per keyid. Requests without a client id ({@code ''}) say when
   * the keyid was asked but are no device.
   */
  static final String USAGE_SQL =
      "SELECT key_id, max(last_asked), count(*) FILTER (WHERE client_id <> '') FROM key_asks"
          + " WHERE app_id = $1 AND last_asked >= $2 GROUP BY key_id";

  /** A keyid's asks within the window: when the last was (exact to the hour) and by how many devices. */
  public record Usage(String keyId, Instant lastAsked, long devices) {}

  private final Supplier<TelemetryDb> db;
  private final Duration window;
  private final Supplier<Instant> clock;

  /**
   * @param db the telemetry database, resolved on first use
   * @param window how far back an ask keeps a key in use ({@code --key-in-use-days})
   */
  public KeyAskReads(Supplier<TelemetryDb> db, Duration window, Supplier<Instant> clock) {
    this.db = db;
    this.window = window;
    this.clock = clock;
  }

  public Duration window() {
    return window;
  }

  /** Whole days of {@link #window}, for messages. */
  public long windowDays() {
    return window.toDays();
  }

  /** {@code host:port/database} of the telemetry database, for messages. */
  public String where() {
    return db.get().where();
  }

  /**
   * The keyids of app {@code appId} (created at {@code createdAt}) that devices asked for within the window; a keyid
   * nobody asked for is absent. Fails when PostgreSQL cannot be used ({@link TelemetryDb#isOutage}) or in time.
   */
  public Future<Map<String, Usage>> usage(String appId, Instant createdAt) {
    Instant since = clock.get().minus(window);
    if (createdAt != null && createdAt.isAfter(since)) {
      since = createdAt;
    }
    OffsetDateTime from = OffsetDateTime.ofInstant(since, ZoneOffset.UTC);
    TelemetryDb d = db.get();
    return d.bounded(d.ready().compose(v -> d.pool().preparedQuery(USAGE_SQL).execute(Tuple.of(appId, from))).map(rows -> {
      Map<String, Usage> out = new HashMap<>();
      for (Row r : rows) {
        out.put(r.getString(0), new Usage(r.getString(0), r.getOffsetDateTime(1).toInstant(), r.getLong(2)));
      }
      return out;
    })).andThen(ar -> {
      if (ar.succeeded()) {
        d.available();
      } else if (TelemetryDb.isOutage(ar.cause())) {
        d.unavailable(ar.cause());
      }
    });
  }
}
