package dev.updraft.systemtests.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.edge.EdgeNode;
import dev.updraft.events.AppSnapshot;
import dev.updraft.events.SnapshotCodec;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import dev.updraft.systemtests.replay.SnapshotStartIT.Answer;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.SnapshotTopic;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An edge handed snapshots it cannot use, on a real Kafka: one whose chunk was damaged (its checksum fails),
 * one whose bytes match their checksum but are not a snapshot, one of a format version this build does not
 * know. It replays those apps from the log and answers each of them, and the app whose snapshot is intact,
 * byte for byte as an edge that never saw a snapshot; it says which snapshots it used and counts the others
 * by reason.
 */
@ExtendWith(RealInfrastructure.class)
class SnapshotFallbackIT {
  static final String INTACT = "intact";
  static final String DAMAGED = "damaged";
  static final String NOT_A_SNAPSHOT = "not-a-snapshot";
  static final String FUTURE = "future";
  /** Events of an app after which the control plane writes its snapshot. */
  static final int EVERY = 3;

  @TempDir Path work;

  @Test
  void anEdgeGivenCorruptAndUnknownVersionSnapshotsReplaysThoseAppsAndAnswersAsAnEdgeThatNeverSawThem(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, work.resolve("data"), Map.of("snapshot-interval-events", Integer.toString(EVERY)))) {
      EdgeNode fromZero = stack.edge; // started before any snapshot existed: it reads the log from offset 0
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Map<String, List<String>> ids = new TreeMap<>();
      int n = 0;
      for (String app : List.of(INTACT, DAMAGED, NOT_A_SNAPSHOT, FUTURE)) {
        ids.put(app, publish(cli, app, n++));
      }
      // every snapshot the policy asks for is written: each app's is less than EVERY events behind its log, and
      // no more events come, so the control plane writes none over the ones damaged below
      Map<String, Long> last = new LinkedHashMap<>();
      Map<String, AppSnapshot> snaps = new LinkedHashMap<>();
      for (String app : ids.keySet()) {
        long seq = SnapshotStartIT.JSON.readTree(Http.get(stack.controlUrl() + "/v1/apps/" + app, "authorization", "Bearer " + Stack.ADMIN_TOKEN).body())
            .path("lastSequence").asLong();
        last.put(app, seq);
        snaps.put(app, SnapshotTopic.await(infra, app, "the snapshots due at sequence " + seq + " are written", s -> seq - s < EVERY));
      }

      Map<String, byte[]> records = SnapshotTopic.records(infra);
      Map<String, byte[]> damage = new LinkedHashMap<>();
      // a chunk whose bytes changed: the manifest's checksum no longer matches
      SnapshotManifest damaged = SnapshotCodec.decodeManifest(records.get(SnapshotCodec.manifestKey(DAMAGED)));
      byte[] chunk = records.get(SnapshotCodec.chunkKey(DAMAGED, damaged.snapshotId(), 0)).clone();
      chunk[chunk.length / 2] ^= 0x5a;
      damage.put(SnapshotCodec.chunkKey(DAMAGED, damaged.snapshotId(), 0), chunk);
      // bytes that match their manifest's checksum and size but are no gzip of a snapshot
      SnapshotManifest other = SnapshotCodec.decodeManifest(records.get(SnapshotCodec.manifestKey(NOT_A_SNAPSHOT)));
      byte[] junk = "{\"v\":1,\"appId\":\"not-a-snapshot\"} and more".getBytes(StandardCharsets.UTF_8);
      damage.put(SnapshotCodec.chunkKey(NOT_A_SNAPSHOT, "junk", 0), junk);
      damage.put(SnapshotCodec.manifestKey(NOT_A_SNAPSHOT), SnapshotCodec.encodeManifest(new SnapshotManifest(other.v(), NOT_A_SNAPSHOT,
          "junk", other.partition(), other.offset(), other.lastSequence(), 1, junk.length, SnapshotCodec.sha256(junk))));
      // a manifest of a format version after this build's
      SnapshotManifest future = SnapshotCodec.decodeManifest(records.get(SnapshotCodec.manifestKey(FUTURE)));
      damage.put(SnapshotCodec.manifestKey(FUTURE), SnapshotCodec.encodeManifest(new SnapshotManifest(AppSnapshot.VERSION + 1, FUTURE,
          future.snapshotId(), future.partition(), future.offset(), future.lastSequence(), future.chunks(), future.size(), future.sha256())));
      SnapshotTopic.write(infra, damage);
      assertThat(SnapshotTopic.read(infra, INTACT)).as("the intact app's snapshot is still usable").isNotNull();
      for (String app : List.of(DAMAGED, NOT_A_SNAPSHOT, FUTURE)) {
        assertThat(SnapshotTopic.read(infra, app)).as("the snapshot of %s is no longer usable", app).isNull();
      }

      EdgeNode fresh = stack.startEdge("fresh-after-damage", Map.of("checkins", "false"));
      try {
        JsonNode ready = SnapshotStartIT.JSON.readTree(Http.get("http://127.0.0.1:" + fresh.port() + "/readyz").body());
        assertThat(ready.path("snapshotApps").asInt()).as("snapshots used: %s", ready).isEqualTo(1);
        // the intact app's tail after its snapshot, and every event of the three others
        long replayed = last.get(INTACT) - snaps.get(INTACT).lastSequence() + last.get(DAMAGED) + last.get(NOT_A_SNAPSHOT) + last.get(FUTURE);
        assertThat(ready.path("eventsReplayed").asLong()).as("events replayed: %s", ready).isEqualTo(replayed);
        String metrics = Http.get("http://127.0.0.1:" + fresh.port() + "/metrics").body();
        assertThat(SnapshotStartIT.gaugeIn(metrics, "updraft_snapshot_fallbacks_total{reason=\"corrupt\"}")).isEqualTo(2.0);
        assertThat(SnapshotStartIT.gaugeIn(metrics, "updraft_snapshot_fallbacks_total{reason=\"unknown-version\"}")).isEqualTo(1.0);
        assertThat(SnapshotStartIT.JSON.readTree(Http.get(stack.edgeUrl() + "/readyz").body()).path("groups").asInt()).as("groups of both edges")
            .isEqualTo(ready.path("groups").asInt());

        int served = 0;
        for (Map.Entry<String, List<String>> app : ids.entrySet()) {
          for (List<String> device : SnapshotStartIT.grid(app.getValue())) {
            Answer a = SnapshotStartIT.ask("http://127.0.0.1:" + fromZero.port(), app.getKey(), device);
            Answer b = SnapshotStartIT.ask("http://127.0.0.1:" + fresh.port(), app.getKey(), device);
            assertThat(b).as("app %s request %s", app.getKey(), device).isEqualTo(a);
            served += a.body().contains("launchAsset") ? 1 : 0;
          }
        }
        assertThat(served).as("the grids include served manifests").isGreaterThan(10 * ids.size());
      } finally {
        Stack.await(fresh.close());
      }
    }
  }

  /** An app with a signing key, updates on main, a rollout on beta and a channel split between them; its update ids. */
  private static List<String> publish(CliRunner cli, String app, int n) {
    cli.json("apps", "create", app, "--certificate", Fixtures.certificatePem().toString(), "--private-key",
        Fixtures.privateKeyPkcs1Pem().toString());
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 4 + n; i++) {
      JsonNode g = cli.json("publish", "--app", app, "--branch", "main", "--runtime-version", "1.0.0", "--dist",
          ((i + n) % 2 == 0 ? Fixtures.update1() : Fixtures.update2()).toString());
      g.path("platforms").forEach(p -> ids.add(p.path("updateId").asText()));
    }
    cli.json("publish", "--app", app, "--branch", "beta", "--runtime-version", "1.0.0", "--dist", Fixtures.update2().toString(),
        "--rollout-percentage", Integer.toString(20 + 10 * n));
    cli.json("channel", "--app", app, "--channel", "production", "--branch", "main", "--rollout-branch", "beta", "--percentage",
        Integer.toString(10 + 10 * n));
    cli.json("rollback", "--app", app, "--branch", "old", "--runtime-version", "1.0.0", "--embedded", "--platform", "ios");
    return ids;
  }
}
