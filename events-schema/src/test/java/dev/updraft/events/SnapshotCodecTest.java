package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppSnapshot.Group;
import dev.updraft.events.AppSnapshot.GroupPatches;
import dev.updraft.events.AppSnapshot.IdempotencyKey;
import dev.updraft.events.AppSnapshot.Key;
import dev.updraft.events.AppSnapshot.LaunchAsset;
import dev.updraft.events.AppSnapshot.RetentionPolicy;
import dev.updraft.events.AppSnapshot.RolloutStatus;
import dev.updraft.events.AppSnapshot.Token;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.SnapshotCodec.PartitionMarker;
import dev.updraft.events.SnapshotCodec.Read;
import dev.updraft.events.SnapshotCodec.SnapshotManifest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The snapshot format: the golden files of each version keep decoding to the values written out here by
 * hand (they are never regenerated from the code), and encoding round-trips.
 */
class SnapshotCodecTest {
  static final String G1 = "5b0e3c0a-1111-4a4a-8b8b-000000000001";
  static final String G0 = "5b0e3c0a-1111-4a4a-8b8b-000000000000";

  /** What {@code golden-snapshot/v1/app-snapshot.json} holds. */
  static final AppSnapshot V1 =
      new AppSnapshot(
          1, "demo", 2, 41, 17, "Demo app", "2026-11-30T09:00:00Z", "admin", "production",
          List.of(new Token("tok_3h5k", "publish", "ci", "2c26b46b", "2026-11-30T09:00:01Z", "admin", null)),
          List.of(new Key("main", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n", "ab12",
              "{\"type\":\"noUpdateAvailable\"}", "sig=\"bm91cGRhdGU=\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"",
              "2026-11-30T09:00:02Z", null)),
          List.of(new ChannelMapped("production", "production", null)),
          List.of(
              new Group(
                  new UpdateGroup(G0, UpdateGroup.KIND_UPDATE, "production", "1.0.0", "first", null, "ci-1", null, null,
                      List.of(new PlatformUpdate("ios", "u0", "2026-11-30T10:00:00.000Z", "{\"id\":\"u0\"}",
                          "sig=\"czA=\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"", "k0", List.of("k0"),
                          Map.of("main", "sig=\"czA=\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"")))),
                  10, "2026-11-30T10:00:00Z", "tok_3h5k", Map.of("u0", "2026-11-30T10:00:00Z"), null, null),
              new Group(
                  new UpdateGroup(G1, UpdateGroup.KIND_UPDATE, "production", "1.0.0", "second", "3f2a1b0", "ci-2", null,
                      new Rollout("r1", 10, G0, new RolloutGuard(5.0, 100, 3600), "sha256-v1"),
                      List.of(new PlatformUpdate("ios", "u1", "2026-11-30T10:00:05.000Z", "{\"id\":\"u1\"}", null, "k1",
                          List.of("k1")))),
                  16, "2026-11-30T10:00:05Z", "tok_3h5k", Map.of("u1", "2026-11-30T10:30:00Z"),
                  new RolloutStatus("r1", 50, G0, new RolloutGuard(5.0, 100, 3600), RolloutStatus.ACTIVE, "2026-11-30T10:00:05Z",
                      "2026-11-30T10:20:00Z"),
                  null)),
          List.of(new IdempotencyKey("ci-1", G0, 10, "2026-11-30T10:00:00Z"), new IdempotencyKey("ci-2", G1, 16, "2026-11-30T10:00:05Z")),
          List.of(new LaunchAsset(new LaunchAssetStored("aa11", "application/javascript", 1200,
              List.of(new AssetVariant("identity", "aa11", 1200, "http://127.0.0.1:8080/assets/aa11"))), "2026-11-30T10:00:05Z")),
          List.of(new GroupPatches(new PatchesComputed(G1, List.of(new BundlePatch("ios", "aa11", "bb22", List.of("u0"), "cc33", 80,
              "http://127.0.0.1:8080/assets/cc33"))), "2026-11-30T10:00:07Z")),
          List.of(new BuildRegistered("ios", "1.0.0", "e0", "bb22", 1100L, null)));

  /** What {@code golden-snapshot/v2/app-snapshot.json} holds: v1's content with a pin and two retention policies. */
  static final AppSnapshot V2 =
      new AppSnapshot(
          2, V1.appId(), V1.partition(), V1.offset(), V1.lastSequence(), V1.displayName(), V1.createdAt(), V1.createdBy(), V1.defaultChannel(),
          V1.tokens(), V1.keys(), V1.channels(), V1.groups(), V1.idempotencyKeys(), V1.launchAssets(), V1.patches(), V1.builds(),
          List.of(G0),
          List.of(new RetentionPolicy(null, 10, 7_776_000L, "2026-11-30T09:30:00Z", "admin"),
              new RetentionPolicy("production", 25, null, "2026-11-30T09:40:00Z", "tok_3h5k")));

  private static byte[] golden(String name) throws IOException {
    return golden(1, name);
  }

  private static byte[] golden(int v, String name) throws IOException {
    try (InputStream in = SnapshotCodecTest.class.getResourceAsStream("/golden-snapshot/v" + v + "/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void goldenBodyDecodes() throws IOException {
    Read r = SnapshotCodec.decodeJson("demo", golden("app-snapshot.json"));
    assertThat(r).isEqualTo(new Read.Ok(V1));
  }

  @Test
  void goldenV1BodyHasNoPinsOrPolicies() throws IOException {
    AppSnapshot s = ((Read.Ok) SnapshotCodec.decodeJson("demo", golden("app-snapshot.json"))).snapshot();
    assertThat(s.pinned()).isEmpty();
    assertThat(s.retentionPolicies()).isEmpty();
  }

  @Test
  void goldenV2FilesDecode() throws IOException {
    assertThat(SnapshotCodec.decodeJson("demo", golden(2, "app-snapshot.json"))).isEqualTo(new Read.Ok(V2));
    assertThat(SnapshotCodec.decodeManifest(golden(2, "manifest.json")))
        .isEqualTo(new SnapshotManifest(2, "demo", "s-0001", 2, 41, 17, 1, 812,
            "0f343b0931126a20f133d67c6b018a3b1c9cb1fdbe4e2e8e8c8c0a2a8e6c2d11"));
    assertThat(SnapshotCodec.decodeMarker(golden(2, "partition-marker.json"))).isEqualTo(new PartitionMarker(2, 2, 30));
    byte[] gz = SnapshotCodec.encode(V2);
    List<byte[]> chunks = SnapshotCodec.split(gz, 100);
    assertThat(SnapshotCodec.read(SnapshotCodec.manifest(V2, "s2", gz, chunks.size()), chunks)).isEqualTo(new Read.Ok(V2));
  }

  @Test
  void goldenManifestAndMarkerDecode() throws IOException {
    assertThat(SnapshotCodec.decodeManifest(golden("manifest.json")))
        .isEqualTo(new SnapshotManifest(1, "demo", "s-0001", 2, 41, 17, 1, 812,
            "0f343b0931126a20f133d67c6b018a3b1c9cb1fdbe4e2e8e8c8c0a2a8e6c2d11"));
    assertThat(SnapshotCodec.decodeMarker(golden("partition-marker.json"))).isEqualTo(new PartitionMarker(1, 2, 30));
  }

  @Test
  void roundTripsThroughChunks() {
    byte[] gz = SnapshotCodec.encode(V1);
    List<byte[]> chunks = SnapshotCodec.split(gz, 100);
    assertThat(chunks.size()).isGreaterThan(1);
    SnapshotManifest m = SnapshotCodec.manifest(V1, "s1", gz, chunks.size());
    assertThat(SnapshotCodec.decodeManifest(SnapshotCodec.encodeManifest(m))).isEqualTo(m);
    assertThat(SnapshotCodec.read(m, chunks)).isEqualTo(new Read.Ok(V1));
    assertThat(SnapshotCodec.split(new byte[0], 10)).hasSize(1);
  }

  @Test
  void aMissingOrCorruptChunkOrAnUnknownVersionFallsBack() {
    byte[] gz = SnapshotCodec.encode(V1);
    List<byte[]> chunks = SnapshotCodec.split(gz, 100);
    SnapshotManifest m = SnapshotCodec.manifest(V1, "s1", gz, chunks.size());
    assertThat(reason(SnapshotCodec.read(m, chunks.subList(0, chunks.size() - 1)))).isEqualTo(SnapshotCodec.MISSING);
    List<byte[]> holes = new ArrayList<>(chunks);
    holes.set(0, null);
    assertThat(reason(SnapshotCodec.read(m, holes))).isEqualTo(SnapshotCodec.MISSING);
    List<byte[]> flipped = new ArrayList<>(chunks);
    byte[] c = flipped.get(1).clone();
    c[3] ^= 1;
    flipped.set(1, c);
    assertThat(reason(SnapshotCodec.read(m, flipped))).isEqualTo(SnapshotCodec.CORRUPT);
    SnapshotManifest future = new SnapshotManifest(AppSnapshot.VERSION + 1, m.appId(), m.snapshotId(), m.partition(), m.offset(), m.lastSequence(), m.chunks(),
        m.size(), m.sha256());
    assertThat(reason(SnapshotCodec.read(future, chunks))).isEqualTo(SnapshotCodec.UNKNOWN_VERSION);
    String body = new String(SnapshotCodec.bodyJson(V1), StandardCharsets.UTF_8).replaceFirst("\"v\":1", "\"v\":" + (AppSnapshot.VERSION + 1));
    assertThat(reason(SnapshotCodec.decodeJson("demo", body.getBytes(StandardCharsets.UTF_8)))).isEqualTo(SnapshotCodec.UNKNOWN_VERSION);
    assertThat(reason(SnapshotCodec.decodeJson("other", SnapshotCodec.bodyJson(V1)))).isEqualTo(SnapshotCodec.CORRUPT);
    assertThat(reason(SnapshotCodec.decode("demo", new byte[] {1, 2, 3}))).isEqualTo(SnapshotCodec.CORRUPT);
    assertThat(SnapshotCodec.decodeManifest(new byte[] {'{'})).isNull();
    assertThat(SnapshotCodec.decodeMarker("{\"v\":9,\"partition\":0,\"fromOffset\":1}".getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @Test
  void keysTellManifestsChunksAndMarkersApart() {
    assertThat(SnapshotCodec.isManifestKey(SnapshotCodec.manifestKey("demo"))).isTrue();
    assertThat(SnapshotCodec.isChunkKey(SnapshotCodec.chunkKey("demo", "s1", 3))).isTrue();
    assertThat(SnapshotCodec.isMarkerKey(SnapshotCodec.markerKey(2))).isTrue();
    assertThat(SnapshotCodec.isChunkKey(SnapshotCodec.markerKey(2))).isFalse();
    assertThat(SnapshotCodec.isManifestKey(SnapshotCodec.markerKey(2))).isFalse();
    assertThat(SnapshotCodec.isMarkerKey(SnapshotCodec.chunkKey("demo", "s1", 3))).isFalse();
  }

  private static String reason(Read r) {
    return r instanceof Read.Fallback ? ((Read.Fallback) r).reason() : "ok";
  }
}
