package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Folding check-ins into rows: pure logic, no database. */
class BatchTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final long T = 1_767_261_600_000L; // 2026-01-01T10:00:00Z, an hour boundary
  private static final String EMB = "e0000000-0000-4000-8000-000000000000";
  private static final String U1 = "a1111111-0000-4000-8000-000000000000";
  private static final String U2 = "b2222222-0000-4000-8000-000000000000";

  private static CheckIn checkIn(String client, String current, List<String> failed, String outcome, String served, long at) {
    return CheckIn.builder()
        .checkInId(client + "@" + at)
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("production")
        .clientId(client)
        .currentUpdateId(current)
        .embeddedUpdateId(EMB)
        .failedUpdateIds(failed)
        .outcome(outcome)
        .reason(CheckIn.REASON_NEW_UPDATE)
        .branch("main")
        .rolloutBucket(17)
        .servedUpdateId(served)
        .servedGroupId(served == null ? null : "g2")
        .atEpochMillis(at)
        .edgeId("edge-1")
        .build();
  }

  private static void add(Batch b, long offset, CheckIn c) {
    b.cover(P0, 0, false, offset);
    b.add(CheckIns.clean(c, 0));
  }

  @Test
  void collapsesRepeatedCheckInsOfADeviceIntoOneRowKeepingCountsExact() {
    Batch b = new Batch(false);
    add(b, 0, checkIn("d1", EMB, List.of(), CheckIn.OUTCOME_UPDATE, U1, T));
    add(b, 1, checkIn("d1", EMB, List.of(), CheckIn.OUTCOME_UPDATE, U1, T + 1_000));
    add(b, 2, checkIn("d1", U1, List.of(), CheckIn.OUTCOME_NO_UPDATE, null, T + 2_000));
    add(b, 3, checkIn("d2", U1, List.of(), CheckIn.OUTCOME_NO_UPDATE, null, T + 500));

    assertThat(b.records()).isEqualTo(4);
    assertThat(b.devices()).hasSize(2);
    Batch.Device d1 = b.devices().get(new Batch.DeviceKey("app", "d1"));
    assertThat(d1.checkIns).isEqualTo(3);
    assertThat(d1.first).isEqualTo(T);
    assertThat(d1.last).isEqualTo(T + 2_000);
    assertThat(d1.latest.currentUpdateId()).as("the newest check-in wins").isEqualTo(U1);
    // launches: 2 on the embedded bundle, 2 on U1, all in the 10:00 hour
    Batch.Hour emb = b.hours().get(new Batch.HourKey("app", EMB, T, "ios", "production"));
    assertThat(emb.launches).isEqualTo(2);
    assertThat(emb.embeddedLaunches).isEqualTo(2);
    Batch.Hour u1 = b.hours().get(new Batch.HourKey("app", U1, T, "ios", "production"));
    assertThat(u1.launches).isEqualTo(2);
    assertThat(u1.embeddedLaunches).isZero();
    assertThat(u1.served).as("served U1 twice").isEqualTo(2);
    assertThat(b.receipts()).hasSize(1);
    assertThat(b.receipts().get(new Batch.DeviceUpdateKey("app", U1, "d1")).first).isEqualTo(T);
  }

  @Test
  void countsCheckInsWithoutAClientIdAsLaunchesButNotAsDevices() {
    Batch b = new Batch(false);
    add(b, 0, checkIn(null, U2, List.of(U1), CheckIn.OUTCOME_UPDATE, U2, T));
    add(b, 1, checkIn("", U2, List.of(), CheckIn.OUTCOME_NO_UPDATE, null, T));

    assertThat(b.devices()).isEmpty();
    assertThat(b.failures()).as("a failure without a device is a report, not a failing device").isEmpty();
    assertThat(b.receipts()).isEmpty();
    assertThat(b.hours().get(new Batch.HourKey("app", U2, T, "ios", "production")).launches).isEqualTo(2);
    assertThat(b.hours().get(new Batch.HourKey("app", U1, T, "ios", "production")).failureReports).isEqualTo(1);
  }

  @Test
  void countsFailingDevicesOncePerUpdateAndEveryReport() {
    Batch b = new Batch(false);
    add(b, 0, checkIn("d1", EMB, List.of(U2), CheckIn.OUTCOME_NO_UPDATE, null, T - 1));
    add(b, 1, checkIn("d1", EMB, List.of(U2, U2, U1), CheckIn.OUTCOME_NO_UPDATE, null, T + 10));

    Batch.Failure f = b.failures().get(new Batch.DeviceUpdateKey("app", U2, "d1"));
    assertThat(f.reports).as("duplicate ids in one header count once").isEqualTo(2);
    assertThat(f.first).isEqualTo(T - 1);
    assertThat(f.last).isEqualTo(T + 10);
    assertThat(b.failures()).hasSize(2);
    // the two reports of U2 fall in two hours: 09:00 and 10:00
    assertThat(b.hours().get(new Batch.HourKey("app", U2, T - Batch.HOUR_MS, "ios", "production")).failureReports).isEqualTo(1);
    assertThat(b.hours().get(new Batch.HourKey("app", U2, T, "ios", "production")).failureReports).isEqualTo(1);
  }

  private static CheckIn crash(String client, String current, List<String> failed, String bucket, long at) {
    return checkIn(client, current, failed, CheckIn.OUTCOME_NO_UPDATE, null, at).toBuilder()
        .fatalError("TypeError: undefined is not an object").addressBucket(bucket).build();
  }

  @Test
  void attributesAFatalErrorHeaderToTheCurrentUpdateUnlessEmbeddedOrAfterAFailedLaunch() {
    assertThat(Batch.crashedUpdateId(crash("d1", U1, List.of(), "b1", T))).as("a crash past the first render: still on U1").isEqualTo(U1);
    assertThat(Batch.crashedUpdateId(crash("d1", U1, List.of(U2), "b1", T)))
        .as("U2 failed to launch and the device fell back to U1: the crash is U2's failure").isNull();
    assertThat(Batch.crashedUpdateId(crash("d1", EMB, List.of(), "b1", T))).as("on the embedded bundle").isNull();
    assertThat(Batch.crashedUpdateId(crash("d1", null, List.of(), "b1", T))).as("no current update").isNull();
    assertThat(Batch.crashedUpdateId(checkIn("d1", U1, List.of(), CheckIn.OUTCOME_NO_UPDATE, null, T))).as("no header").isNull();

    Batch b = new Batch(false);
    add(b, 0, crash("d1", U1, List.of(), "b1", T + 10));
    add(b, 1, crash("d1", U1, List.of(), "b2", T + 5)); // an earlier check-in read later: its bucket is the first
    add(b, 2, crash("d2", U1, List.of(U2), "b1", T));
    add(b, 3, crash("d3", EMB, List.of(U2), "b1", T));
    add(b, 4, crash(null, U1, List.of(), "b1", T));

    assertThat(b.crashes()).as("d1 once; d2 and d3 reported failed launches; no client id is no device")
        .containsOnlyKeys(new Batch.DeviceUpdateKey("app", U1, "d1"));
    Batch.Failure c = b.crashes().get(new Batch.DeviceUpdateKey("app", U1, "d1"));
    assertThat(c.reports).isEqualTo(2);
    assertThat(c.first).isEqualTo(T + 5);
    assertThat(c.last).isEqualTo(T + 10);
    assertThat(c.addressBucket).isEqualTo("b2");
    assertThat(c.platform).isEqualTo("ios");
    assertThat(b.failures()).as("the failed launches are failures of U2, each once")
        .containsOnlyKeys(new Batch.DeviceUpdateKey("app", U2, "d2"), new Batch.DeviceUpdateKey("app", U2, "d3"));
  }

  @Test
  void keepsTheOffsetRangeFromTheFirstRecordOfEachPartition() {
    Batch b = new Batch(false);
    b.cover(P0, 40, true, 41);
    b.cover(P0, 42, true, 42);
    b.cover(new TopicPartition("t", 1), 0, false, 7);
    assertThat(b.ranges().get(P0).expected).isEqualTo(40);
    assertThat(b.ranges().get(P0).expectedRow).isTrue();
    assertThat(b.ranges().get(P0).next).isEqualTo(43);
    assertThat(b.ranges().get(new TopicPartition("t", 1)).expectedRow).isFalse();
    assertThat(BatchWriter.describe(b)).isEqualTo("[0:40->43, 1:none->8]");
  }

  @Test
  void cleansValuesPostgresWouldRefuseAndRejectsKeysTooLongToIndex() {
    CheckIn nul = CheckIn.builder()
        .checkInId("c\u00001")
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .channel("prod\u0000uction")
        .clientId("D1-ABC")
        .failedUpdateIds(List.of(U1, U1, " "))
        .outcome(CheckIn.OUTCOME_NO_UPDATE)
        .reason(CheckIn.REASON_NO_UPDATE_FOR_RUNTIME)
        .fatalError("x".repeat(5000))
        .build();
    CheckIn clean = CheckIns.clean(nul, 1234L);
    assertThat(clean.checkInId()).isEqualTo("c1");
    assertThat(clean.channel()).isEqualTo("production");
    assertThat(clean.clientId()).as("client ids compare in lower case").isEqualTo("d1-abc");
    assertThat(clean.failedUpdateIds()).containsExactly(U1);
    assertThat(clean.fatalError()).hasSize(1024);
    assertThat(clean.atEpochMillis()).as("no edge time: the Kafka record's").isEqualTo(1234L);

    CheckIn longKey = CheckIn.builder()
        .checkInId("c")
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .clientId("y".repeat(129))
        .atEpochMillis(1)
        .build();
    assertThat(CheckIns.clean(longKey, 0)).isNull();
    assertThat(CheckIns.problem(longKey)).isEqualTo("clientId longer than 128 characters: length=129");
    // a device whose channel or runtime version is longer than any that exists was still answered: kept, cut
    CheckIn longNames = CheckIn.builder()
        .checkInId("c")
        .appId("app")
        .platform("ios")
        .runtimeVersion("r".repeat(300))
        .channel("c".repeat(5000))
        .clientId("d")
        .atEpochMillis(1)
        .build();
    assertThat(CheckIns.problem(longNames)).isNull();
    assertThat(CheckIns.clean(longNames, 0).channel()).isEqualTo("c".repeat(CheckIns.MAX_NAME));
    assertThat(CheckIns.clean(longNames, 0).runtimeVersion()).isEqualTo("r".repeat(CheckIns.MAX_NAME));
    CheckIn badBucket = CheckIn.builder()
        .checkInId("c")
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .clientId("d")
        .rolloutBucket(10_000)
        .atEpochMillis(1)
        .build();
    assertThat(CheckIns.problem(badBucket)).contains("rolloutBucket");
    CheckIn farFuture = CheckIn.builder()
        .checkInId("c")
        .appId("app")
        .platform("ios")
        .runtimeVersion("1.0.0")
        .clientId("d")
        .atEpochMillis(Long.MAX_VALUE)
        .build();
    assertThat(CheckIns.problem(farFuture)).startsWith("atEpochMillis after year 9999");
  }

  @Test
  void lingersFromTheSendOfTheRecordThatWaitedLongestInKafka() {
    Batch b = new Batch(false);
    long before = System.nanoTime();
    b.cover(P0, 0, false, 0, 0);
    b.cover(P0, 0, false, 1, TimeUnit.MILLISECONDS.toNanos(200));
    b.cover(P0, 0, false, 2, TimeUnit.MILLISECONDS.toNanos(50));
    long after = System.nanoTime();
    assertThat(b.firstRecordNanos()).as("the batch wait counts from the first record read").isBetween(before, after);
    assertThat(b.producedNanos()).as("the linger counts from the second record's send, 200 ms before it was read")
        .isBetween(before - TimeUnit.MILLISECONDS.toNanos(200), after - TimeUnit.MILLISECONDS.toNanos(200));
  }
}
