package dev.updraft.edge.assets;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PatchFailuresTest {
  static final String APP = "demo";
  static final String TARGET = "aa".repeat(32);
  static final String BASE = "0e5b1d2c-3f4a-4b6c-8d7e-00000000000b";
  static final String EMBEDDED = "0e5b1d2c-3f4a-4b6c-8d7e-00000000000e";

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final AtomicLong now = new AtomicLong(1_000_000);
  final PatchFailures failures = new PatchFailures(registry, now::get);

  @Test
  void aFullDownloadOfTheSameBundleByTheSameDeviceAfterA226IsAFailedPatch() {
    failures.served(APP, TARGET, BASE, "device-1");
    now.addAndGet(5_000);

    assertThat(failures.full(APP, TARGET, BASE, "device-1", EMBEDDED)).isTrue();
    assertThat(failures.full(APP, TARGET, BASE, "device-1", EMBEDDED)).as("counted once").isFalse();
    assertThat(count("update")).isEqualTo(1);
    assertThat(failures.bases().get(APP + "/" + BASE).failed.get()).isEqualTo(1);
  }

  @Test
  void anotherDeviceBundleOrBaseOrALateRequestIsNoFailure() {
    failures.served(APP, TARGET, BASE, "device-1");

    assertThat(failures.full(APP, TARGET, BASE, "device-2", null)).isFalse();
    assertThat(failures.full(APP, "bb".repeat(32), BASE, "device-1", null)).isFalse();
    assertThat(failures.full(APP, TARGET, EMBEDDED, "device-1", null)).isFalse();
    assertThat(failures.full(APP, TARGET, BASE, null, null)).isFalse();
    now.addAndGet(PatchFailures.WINDOW_MS + 1);
    assertThat(failures.full(APP, TARGET, BASE, "device-1", null)).as("after the window").isFalse();
    assertThat(count("update") + count("embedded")).isZero();
  }

  @Test
  void aFailedPatchFromTheEmbeddedBundleCountsForTheBuild() {
    failures.served(APP, TARGET, EMBEDDED, "device-1");

    assertThat(failures.full(APP, TARGET, EMBEDDED, "device-1", EMBEDDED)).isTrue();
    assertThat(count("embedded")).isEqualTo(1);
    assertThat(count("update")).isZero();
  }

  @Test
  void aBaseStopsOnceEnoughOfItsPatchesFailAndHalfOfThoseServed() {
    int devices = PatchFailures.MIN_FAILURES * 2;
    for (int i = 0; i < devices; i++) {
      failures.served(APP, TARGET, EMBEDDED, "device-" + i);
    }
    for (int i = 0; i < PatchFailures.MIN_FAILURES - 1; i++) {
      failures.full(APP, TARGET, EMBEDDED, "device-" + i, EMBEDDED);
    }
    assertThat(failures.stopped(APP, EMBEDDED)).as("%d failures", PatchFailures.MIN_FAILURES - 1).isFalse();

    failures.full(APP, TARGET, EMBEDDED, "device-" + (PatchFailures.MIN_FAILURES - 1), EMBEDDED);

    assertThat(failures.stopped(APP, EMBEDDED)).isTrue();
    assertThat(failures.stopped(APP, BASE)).isFalse();
    assertThat(registry.get("updraft.edge.patch.bases.stopped").gauge().value()).isEqualTo(1);
  }

  @Test
  void aBaseWhoseFailuresAreAFewOfManyPatchesKeepsServing() {
    int served = PatchFailures.MIN_FAILURES * 3;
    for (int i = 0; i < served; i++) {
      failures.served(APP, TARGET, BASE, "device-" + i);
    }
    for (int i = 0; i < PatchFailures.MIN_FAILURES; i++) {
      failures.full(APP, TARGET, BASE, "device-" + i, null);
    }

    assertThat(failures.stopped(APP, BASE)).as("%d of %d failed", PatchFailures.MIN_FAILURES, served).isFalse();
  }

  private double count(String kind) {
    return registry.get("updraft.edge.patch.failures").tag("base", kind).counter().count();
  }
}
