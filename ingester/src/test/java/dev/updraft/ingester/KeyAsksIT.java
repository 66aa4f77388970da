package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.dbschema.SchemaMigrations;
import dev.updraft.events.CheckIn;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The keyids devices ask for reach {@code key_asks} against a real PostgreSQL: one row per (app, keyid, device)
 * holding when the device last asked, rewritten only when it asks an hour or more later.
 */
@ExtendWith(RealInfrastructure.class)
class KeyAsksIT {
  private static final long T0 = 1_767_261_600_000L; // 2026-01-01T10:00:00Z
  private static final long MINUTE = 60_000L;
  private static Vertx vertx;
  private static Pool pool;
  private static TestDb db;

  @BeforeAll
  static void connect(Infra infra) throws Exception {
    vertx = Vertx.vertx();
    pool = TelemetryIngester.pool(vertx, IngesterConfig.pgOptions(
        TestDb.postgresUrl(infra.pgHost(), infra.pgPort(), infra.database(), infra.pgUser())), 2, "test");
    TelemetryIngesterIT.await(SchemaMigrations.apply(pool));
    db = TelemetryIngesterIT.db(infra);
  }

  @AfterAll
  static void close() throws Exception {
    TelemetryIngesterIT.await(pool.close());
    TelemetryIngesterIT.await(vertx.close());
  }

  private static CheckIn ask(String app, String client, String keyId, long at) {
    return CheckIn.builder().checkInId(app + "-" + client + "-" + keyId + "-" + at).appId(app).platform("android")
        .runtimeVersion("1.0.0").channel("production").clientId(client).outcome(CheckIn.OUTCOME_NO_UPDATE)
        .reason(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME).atEpochMillis(at).edgeId("edge-1").keyId(keyId).build();
  }

  private static void write(BatchWriter w, TopicPartition tp, long first, List<CheckIn> checkIns) throws Exception {
    Batch b = new Batch(false);
    for (int i = 0; i < checkIns.size(); i++) {
      b.cover(tp, first, first > 0, first + i);
      b.add(CheckIns.clean(checkIns.get(i), 0));
    }
    TelemetryIngesterIT.await(w.write(b));
  }

  private static List<List<Object>> rows(String app) {
    return db.rows("SELECT key_id, client_id, (extract(epoch FROM last_asked) * 1000)::bigint FROM key_asks"
        + " WHERE app_id = ? ORDER BY key_id, client_id", app);
  }

  @Test
  void eachDeviceKeepsWhenItLastAskedForEachKeyidToTheHour() throws Exception {
    BatchWriter w = new BatchWriter(pool, "key-asks");
    TopicPartition tp = new TopicPartition("key-asks", 0);
    String app = "app-key-asks";
    write(w, tp, 0, List.of(
        ask(app, "d1", "k2", T0),
        ask(app, "d2", "k2", T0 + MINUTE),
        ask(app, "d1", "main", T0),
        ask(app, null, "k2", T0 + 2 * MINUTE),
        ask(app, "d3", null, T0), // asked for no signature
        ask(app, "D1", "k2", T0 + 5 * MINUTE))); // the same device (client ids are lower-cased), later

    assertThat(rows(app)).containsExactly(
        List.of("k2", "", T0 + 2 * MINUTE),
        List.of("k2", "d1", T0 + 5 * MINUTE),
        List.of("k2", "d2", T0 + MINUTE),
        List.of("main", "d1", T0));

    write(w, tp, 6, List.of(
        ask(app, "d1", "k2", T0 + 30 * MINUTE), // within the hour: the row stays
        ask(app, "d2", "k2", T0 + 121 * MINUTE), // over an hour later: rewritten
        ask(app, "d1", "main", T0 - 60 * MINUTE))); // older than stored: never moves back

    assertThat(rows(app)).containsExactly(
        List.of("k2", "", T0 + 2 * MINUTE),
        List.of("k2", "d1", T0 + 5 * MINUTE),
        List.of("k2", "d2", T0 + 121 * MINUTE),
        List.of("main", "d1", T0));
  }
}
