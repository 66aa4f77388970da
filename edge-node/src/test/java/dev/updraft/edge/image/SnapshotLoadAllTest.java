package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * Many apps' snapshots built into the image one app per task on a pool ({@link ImageDelta#loadAll}) give
 * the image that loading them one by one on one thread gives: the same groups, lines, channels, filters and
 * the same bytes for every prepared entry and variant.
 */
class SnapshotLoadAllTest {
  static final int APPS = 40;

  static AppSnapshot snapshot(int a) {
    String app = "app-" + a;
    List<AppSnapshot.Group> groups = new ArrayList<>();
    int n = 3 + a % 9;
    for (int i = 0; i < n; i++) {
      String branch = i % 3 == 2 ? "beta" : "main";
      String rtv = i % 4 == 3 ? "2.0.0" : Scenario.RTV;
      boolean rolling = i == n - 1 && a % 2 == 0 && i > 0;
      Rollout rollout = rolling ? new Rollout("r-" + a, 10 + a, app + "-g" + (i - 1), null) : null;
      UpdateGroup g = Scenario.group(app + "-g" + i, branch, rtv, rollout);
      AppSnapshot.RolloutStatus status = rolling
          ? new AppSnapshot.RolloutStatus("r-" + a, 10 + a, app + "-g" + (i - 1), null, AppSnapshot.RolloutStatus.ACTIVE, "t", "t")
          : null;
      groups.add(new AppSnapshot.Group(g, i + 2, "2026-01-01T00:00:00Z", "test", Map.of(), status, i == 1 && a % 3 == 0 ? "x" : null));
    }
    List<AppSnapshot.Key> keys = a % 2 == 0 ? List.of()
        : List.of(new AppSnapshot.Key("main", "PEM", "abc", "{\"type\":\"noUpdateAvailable\"}", "sig=\"AAAA\", keyid=\"main\"", "t", null));
    List<ChannelMapped> channels = List.of(new ChannelMapped("production", "main", null));
    return new AppSnapshot(AppSnapshot.VERSION, app, a % 3, 100 + a, n + 2, app, "t", "test", "production", List.of(), keys, channels,
        groups, List.of(), List.of(), List.of(), List.of(), List.of(), List.of());
  }

  static ResolveImage oneByOne(ResolveImage base, List<AppSnapshot> snapshots) {
    ImageDelta d = new ImageDelta(base);
    for (AppSnapshot s : snapshots) {
      d.load(s);
    }
    return d.apply();
  }

  @Test
  void aPoolBuildsTheImageOneThreadBuilds() {
    List<AppSnapshot> snapshots = new ArrayList<>();
    for (int a = 0; a < APPS; a++) {
      snapshots.add(snapshot(a));
    }
    ResolveImage base = Scenario.replay(ResolveImage.EMPTY, Scenario.full().events); // an app the snapshots do not touch
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 3; round++) {
        ResolveImage serial = oneByOne(base, snapshots);
        ResolveImage parallel = ImageDelta.loadAll(base, snapshots, pool);
        assertThat(parallel.appIds()).isEqualTo(serial.appIds()).hasSize(APPS + 1);
        assertThat(parallel.groupCount()).isEqualTo(serial.groupCount());
        assertThat(parallel.bytes()).isEqualTo(serial.bytes());
        for (String id : serial.appIds()) {
          assertSame(id, serial.app(id), parallel.app(id));
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static void assertSame(String app, AppImage a, AppImage b) {
    assertThat(b.lastSequence).as(app).isEqualTo(a.lastSequence);
    assertThat(b.groups.keySet()).as(app).isEqualTo(a.groups.keySet());
    assertThat(b.lines).as(app).isEqualTo(a.lines);
    assertThat(b.channels).as(app).isEqualTo(a.channels);
    assertThat(b.filters).as(app).isEqualTo(a.filters);
    assertThat(b.groupOfEntry).as(app).isEqualTo(a.groupOfEntry);
    assertThat(b.table.keySet()).as(app).isEqualTo(a.table.keySet());
    assertThat(b.prepared.keySet()).as(app).isEqualTo(a.prepared.keySet());
    for (Map.Entry<String, Prepared> p : a.prepared.entrySet()) {
      Prepared q = b.prepared.get(p.getKey());
      assertThat(q.multipart().getBytes()).as(app + " " + p.getKey()).isEqualTo(p.getValue().multipart().getBytes());
      assertThat(q.multipartContentType().toString()).isEqualTo(p.getValue().multipartContentType().toString());
      for (int k = 0; k < a.keys.size(); k++) {
        assertThat(q.multipartSigned(k) == null ? null : q.multipartSigned(k).getBytes())
            .isEqualTo(p.getValue().multipartSigned(k) == null ? null : p.getValue().multipartSigned(k).getBytes());
      }
    }
    assertThat(b.noUpdate.multipart().getBytes()).isEqualTo(a.noUpdate.multipart().getBytes());
  }
}
