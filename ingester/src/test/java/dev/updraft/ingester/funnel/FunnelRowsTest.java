package dev.updraft.ingester.funnel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One batch's funnel rows: each device's stages for each update once, at the first time seen; asset check-ins give
 * the fetch stages under the requested update; no row for a check-in without a client id, a refusal, or an asset
 * request naming no update.
 */
class FunnelRowsTest {
  static final String U1 = "11111111-1111-4111-8111-111111111111";
  static final String U2 = "22222222-2222-4222-8222-222222222222";

  static CheckIn.Builder manifest(String client, long at) {
    return CheckIn.builder().appId("app").platform("ios").runtimeVersion("1").clientId(client).atEpochMillis(at);
  }

  static CheckIn asset(String client, String reason, String requested, long at) {
    return manifest(client, at).currentUpdateId(U1).servedUpdateId(requested).outcome(CheckIn.OUTCOME_PATCH).reason(reason).build();
  }

  static List<String> rows(FunnelRows f) {
    Tuple t = f.tuple();
    List<String> out = new ArrayList<>();
    String[] update = (String[]) t.getValue(1);
    String[] stage = (String[]) t.getValue(2);
    String[] client = (String[]) t.getValue(3);
    Long[] at = (Long[]) t.getValue(5);
    for (int i = 0; i < update.length; i++) {
      out.add(update[i].substring(0, 1) + " " + stage[i] + " " + client[i] + " " + at[i]);
    }
    return out;
  }

  @Test
  void eachDeviceReachesEachStageOnceAtTheFirstTimeSeen() {
    FunnelRows f = new FunnelRows();
    f.add(manifest("d1", 10).currentUpdateId(U1).outcome(CheckIn.OUTCOME_UPDATE).servedUpdateId(U2).build());
    f.add(manifest("d1", 11).currentUpdateId(U1).outcome(CheckIn.OUTCOME_UPDATE).servedUpdateId(U2).build());
    f.add(asset("d1", CheckIn.REASON_PATCH_SERVED, U2, 12));
    f.add(asset("d1", CheckIn.REASON_PATCH_FAILED, U2, 13));
    f.add(asset("d1", CheckIn.REASON_FULL_SERVED, U2, 13));
    f.add(manifest("d1", 14).currentUpdateId(U2).outcome(CheckIn.OUTCOME_NO_UPDATE).build());
    f.add(manifest("d2", 20).currentUpdateId(U1).failedUpdateIds(List.of(U2)).outcome(CheckIn.OUTCOME_NO_UPDATE).build());
    assertThat(rows(f)).containsExactly("1 launched d1 10", "1 launched d2 20", "2 failed d2 20", "2 full d1 13", "2 launched d1 14",
        "2 patch d1 12", "2 served d1 10");
  }

  @Test
  void anonymousRefusedAndUnattributedRequestsAreNoRow() {
    FunnelRows f = new FunnelRows();
    f.add(manifest(null, 1).currentUpdateId(U1).outcome(CheckIn.OUTCOME_UPDATE).servedUpdateId(U2).build());
    f.add(manifest("d1", 2).currentUpdateId(U1).outcome(CheckIn.OUTCOME_ERROR).reason("missing-runtime-version").build());
    f.add(asset("d1", CheckIn.REASON_FULL_SERVED, null, 3));
    assertThat(f.rows()).isZero();
    assertThat(f.tuple()).isNull();
  }
}
