package dev.updraft.systemtests.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.Snapshots;
import dev.updraft.edge.EdgeNode;
import dev.updraft.edge.image.AppImage;
import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.AppSnapshot;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.SnapshotTopic;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The snapshot written after deletes no longer holds the deleted groups: groups deleted by command (one
 * group, a branch) and by a retention policy are absent from the snapshot read back from
 * {@code updraft.snapshots}, both as the control plane restores it and as an edge loads it; and a fresh edge
 * started from that snapshot answers every device request with the bytes the live edge (which folded the
 * deletes from the log) answers. Real control plane, edges, Kafka and PostgreSQL.
 */
@ExtendWith(RealInfrastructure.class)
class SnapshotAfterDeleteIT {
  static final String APP = "snapdel";

  @TempDir Path data;

  @Test
  void theSnapshotAfterDeletesLacksTheDeletedGroupsAndAnEdgeStartedFromItAnswersLikeTheLiveOne(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, data, Map.of("snapshot-interval", "1s"))) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Api api = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP, "--certificate", Fixtures.certificatePem().toString(), "--private-key",
          Fixtures.privateKeyPkcs1Pem().toString());
      List<String> main = new ArrayList<>();
      List<String> updateIds = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        main.add(publish(cli, "main", i % 2 == 0 ? Fixtures.update1() : Fixtures.update2(), updateIds));
      }
      for (int i = 0; i < 8; i++) {
        Api.Resp r = api.call("POST", "/v1/apps/" + APP + "/rollbacks",
            Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", main.get(2 + i % 2)));
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        main.add(r.json().get("groupId").asText());
        r.json().path("platforms").forEach(p -> updateIds.add(p.path("updateId").asText()));
      }
      List<String> beta = List.of(publish(cli, "beta", Fixtures.update2(), updateIds), publish(cli, "beta", Fixtures.update1(), updateIds));
      assertThat(api.call("PUT", "/v1/apps/" + APP + "/channels/production", Map.of("branch", "main")).status()).isLessThan(300);
      Set<String> heldBefore = new LinkedHashSet<>(listed(api));
      assertThat(heldBefore).containsAll(beta).contains(main.get(11), main.get(7));

      // by command: one group of main's window and the branch beta; by retention: main down to its newest 3
      String byCommand = main.get(7);
      Api.Resp one = api.call("DELETE", "/v1/apps/" + APP + "/updates/" + byCommand, null);
      assertThat(one.status()).as(one.toString()).isEqualTo(200);
      Api.Resp branch = api.call("DELETE", "/v1/apps/" + APP + "/branches/beta", null);
      assertThat(branch.status()).as(branch.toString()).isEqualTo(200);
      Api.Resp keep = api.call("PUT", "/v1/apps/" + APP + "/retention", Map.of("branch", "main", "keep", 3));
      assertThat(keep.status()).as(keep.toString()).isEqualTo(200);
      List<String> remaining = listed(api);
      assertThat(remaining).containsExactly(main.get(11), main.get(10), main.get(9));
      Set<String> deleted = new HashSet<>(heldBefore);
      deleted.removeAll(remaining);
      assertThat(deleted).contains(byCommand).containsAll(beta).contains(main.get(8), main.get(6), main.get(2), main.get(3));
      long lastSequence = api.call("GET", "/v1/apps/" + APP, null).json().get("lastSequence").asLong();
      RetentionIT.awaitEdgeGroups(stack, 3);

      AppSnapshot snap = awaitSnapshot(infra, lastSequence);
      List<String> inSnapshot = new ArrayList<>();
      snap.groups().forEach(g -> inSnapshot.add(g.group().groupId()));
      assertThat(inSnapshot).as("the snapshot's groups").containsExactlyInAnyOrder(remaining.toArray(new String[0]));
      snap.patches().forEach(p -> assertThat(deleted).as("patches of a deleted group").doesNotContain(p.computed().groupId()));
      snap.idempotencyKeys().forEach(k -> assertThat(deleted).as("idempotency key of a deleted group").doesNotContain(k.groupId()));
      assertThat(snap.retentionPolicies()).extracting(AppSnapshot.RetentionPolicy::branch).containsExactly("main");

      ControlState restored = Snapshots.restore(ControlState.EMPTY, snap);
      List<String> controlView = new ArrayList<>();
      for (GroupState g : restored.app(APP).groups()) {
        controlView.add(g.groupId());
      }
      assertThat(controlView).as("the control plane's view of the snapshot").doesNotContainAnyElementsOf(deleted)
          .containsExactlyInAnyOrder(remaining.toArray(new String[0]));
      ImageDelta delta = new ImageDelta(ResolveImage.EMPTY);
      delta.load(snap);
      AppImage edgeView = delta.apply().app(APP);
      assertThat(edgeView.groupIds()).as("the edge's view of the snapshot").doesNotContainAnyElementsOf(deleted)
          .containsExactlyInAnyOrder(remaining.toArray(new String[0]));
      for (String id : deleted) {
        assertThat(edgeView.launchAssets().patchesOf(id)).isEmpty();
      }

      EdgeNode fresh = stack.startEdge("fresh", Map.of("checkins", "false"));
      try {
        JsonNode ready = Api.JSON.readTree(Http.get("http://127.0.0.1:" + fresh.port() + "/readyz").body());
        assertThat(ready.path("snapshotApps").asInt()).as("started from the snapshot: %s", ready).isEqualTo(1);
        int served = 0;
        for (List<String> device : devices(updateIds)) {
          HttpResponse<String> live = manifest(stack.edgeUrl(), device);
          HttpResponse<String> started = manifest("http://127.0.0.1:" + fresh.port(), device);
          assertThat(started.statusCode()).as("request %s", device).isEqualTo(live.statusCode());
          assertThat(started.body()).as("request %s", device).isEqualTo(live.body());
          assertThat(started.headers().firstValue("expo-signature")).as("request %s", device).isEqualTo(live.headers().firstValue("expo-signature"));
          served += live.body().contains("launchAsset") ? 1 : 0;
          for (String id : deleted) {
            assertThat(live.body()).doesNotContain(id);
          }
        }
        assertThat(served).as("the requests include served manifests").isGreaterThan(5);
      } finally {
        Stack.await(fresh.close());
      }
    }
  }

  private static String publish(CliRunner cli, String branch, Path dist, List<String> updateIds) {
    JsonNode g = cli.json("publish", "--app", APP, "--branch", branch, "--runtime-version", "1.0.0", "--dist", dist.toString());
    g.path("platforms").forEach(p -> updateIds.add(p.path("updateId").asText()));
    return g.get("groupId").asText();
  }

  /** The groups the control plane lists, newest first. */
  private static List<String> listed(Api api) {
    List<String> out = new ArrayList<>();
    for (JsonNode g : api.call("GET", "/v1/apps/" + APP + "/updates?limit=200", null).json().get("items")) {
      out.add(g.get("groupId").asText());
    }
    return out;
  }

  /** Requests over platforms, channels, signatures, the update a device runs (deleted ones too) and failed updates. */
  private static List<List<String>> devices(List<String> updateIds) {
    List<List<String>> out = new ArrayList<>();
    int n = 0;
    for (String platform : List.of("ios", "android")) {
      for (String channel : List.of("production", "main", "beta")) {
        for (int k = 0; k < 5; k++) {
          n++;
          List<String> h = new ArrayList<>(List.of("expo-platform", platform, "expo-runtime-version", "1.0.0", "expo-channel-name", channel,
              "expo-protocol-version", "1", "accept", "multipart/mixed,application/expo+json,application/json"));
          if (k % 2 == 0) {
            h.addAll(List.of("expo-expect-signature", "sig, keyid=\"main\", alg=\"rsa-v1_5-sha256\""));
          }
          if (k >= 1) {
            h.addAll(List.of("expo-current-update-id", updateIds.get((n * 5) % updateIds.size())));
          }
          if (k >= 3) {
            List<String> failed = updateIds.subList(updateIds.size() - 1 - (k - 2) * 2, updateIds.size());
            h.addAll(List.of("expo-recent-failed-update-ids", "\"" + String.join("\", \"", failed) + "\""));
          }
          out.add(h);
        }
      }
    }
    return out;
  }

  private static HttpResponse<String> manifest(String base, List<String> headers) throws Exception {
    return Http.get(base + "/apps/" + APP + "/manifest", headers.toArray(new String[0]));
  }

  /** The app's snapshot as read back from {@code updraft.snapshots} once one covers {@code lastSequence} (60 s at most). */
  private static AppSnapshot awaitSnapshot(Infra infra, long lastSequence) throws Exception {
    return SnapshotTopic.await(infra, APP, "it covers sequence " + lastSequence, s -> s >= lastSequence);
  }
}
