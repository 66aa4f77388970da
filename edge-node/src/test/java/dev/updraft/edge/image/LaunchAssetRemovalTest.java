package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deleted groups leave the edge's launch assets: their patches go; every launch-asset record stays (the
 * image holds groups without bodies, so it cannot tell which bundle a remaining republish launches, and
 * must never drop one it does). Whether the events come in one delta or one per event.
 */
class LaunchAssetRemovalTest {
  private static final String A = "a".repeat(64);
  private static final String B = "b".repeat(64);
  private static final String C = "c".repeat(64);
  private static final String PATCH_B = "d".repeat(64);
  private static final String PATCH_C = "e".repeat(64);

  /** g1 launches A; g2 launches B (patch from g1's); g3 launches C (patch from g2's); r2 republishes g2 (launches B). */
  private static Scenario published() {
    return new Scenario()
        .add(new EventPayload.AppCreated("Demo"))
        .add(new UpdatePublished(group("g1", "main", A)))
        .add(stored(A))
        .add(new UpdatePublished(group("g2", "main", B)))
        .add(stored(B))
        .add(new PatchesComputed("g2", List.of(patch(B, A, "g1-ios", PATCH_B))))
        .add(new UpdatePublished(group("g3", "beta", C)))
        .add(stored(C))
        .add(new PatchesComputed("g3", List.of(patch(C, B, "g2-ios", PATCH_C))))
        .add(new UpdatePublished(group("r2", "main", B)));
  }

  @Test
  void aDeletedGroupTakesItsPatchesAndLeavesTheLaunchAssetsRemainingGroupsLaunch() {
    for (boolean oneByOne : new boolean[] {false, true}) {
      Scenario s = published().add(new EventPayload.UpdatesDeleted(List.of("g2", "g1"), null));
      AppImage app = image(s.events, oneByOne);
      assertThat(app.groups).containsOnlyKeys("g3", "r2");
      assertThat(app.launchAssets().asset(A)).as("only g1 launched A: its record lingers, harmless").isNotNull();
      assertThat(app.launchAssets().asset(B)).as("the republished r2 still launches B").isNotNull();
      assertThat(app.launchAssets().asset(C)).isNotNull();
      assertThat(app.launchAssets().patchesOf("g2")).isEmpty();
      assertThat(app.launchAssets().patch(B, "g1-ios")).isNull();
      assertThat(app.launchAssets().patch(C, "g2-ios").sha256()).as("a patch from a deleted group's bundle still serves its devices").isEqualTo(PATCH_C);
      assertThat(app.launchAssets().size()).isEqualTo(3);
    }
  }

  @Test
  void aDeletedBranchTakesThePatchesOfItsGroups() {
    for (boolean oneByOne : new boolean[] {false, true}) {
      AppImage app = image(published().add(new EventPayload.BranchDeleted("beta")).events, oneByOne);
      assertThat(app.launchAssets().patchesOf("g3")).isEmpty();
      assertThat(app.launchAssets().patch(C, "g2-ios")).isNull();
      assertThat(app.launchAssets().asset(A)).isNotNull();
      assertThat(app.launchAssets().asset(B)).isNotNull();
      assertThat(app.launchAssets().patch(B, "g1-ios").sha256()).isEqualTo(PATCH_B);
    }
  }

  @Test
  void anAppCreatedAgainAfterItsDeletionHasNoLaunchAssets() {
    Scenario s = published().add(new EventPayload.AppDeleted("Demo")).add(new EventPayload.AppCreated("Demo again"));
    for (boolean oneByOne : new boolean[] {false, true}) {
      AppImage app = image(s.events, oneByOne);
      assertThat(app.groupCount()).isZero();
      assertThat(app.launchAssets().size()).isZero();
      assertThat(app.launchAssets().asset(B)).isNull();
      assertThat(app.launchAssets().patchesOf("g2")).isEmpty();
    }
    ResolveImage deleted = Scenario.replay(ResolveImage.EMPTY, published().add(new EventPayload.AppDeleted("Demo")).events);
    assertThat(deleted.app(Scenario.APP)).isNull();
  }

  @Test
  void deletingAGroupWithoutLaunchAssetsKeepsTheSameLaunchAssets() {
    Scenario s = published().add(new EventPayload.RolledBackToEmbedded(Scenario.rollback("x1", "main")));
    ResolveImage before = Scenario.replay(ResolveImage.EMPTY, s.events);
    List<EventEnvelope> delete = List.of(Scenario.envelope(Scenario.APP, s.events.size() + 1, new EventPayload.UpdatesDeleted(List.of("x1"), null)));
    ResolveImage after = Scenario.replay(before, delete);
    assertThat(after.app(Scenario.APP).launchAssets()).isSameAs(before.app(Scenario.APP).launchAssets());
  }

  private static AppImage image(List<EventEnvelope> events, boolean oneByOne) {
    ResolveImage img = oneByOne ? Scenario.replayOneByOne(ResolveImage.EMPTY, events) : Scenario.replay(ResolveImage.EMPTY, events);
    return img.app(Scenario.APP);
  }

  /** A group whose manifests launch the bundle {@code sha} (hex). */
  private static UpdateGroup group(String name, String branch, String sha) {
    List<PlatformUpdate> p = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      String id = name + "-" + platform;
      String body = "{\"id\":\"" + id + "\",\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"runtimeVersion\":\"" + Scenario.RTV
          + "\",\"launchAsset\":{\"key\":\"k\",\"hash\":\"" + base64Url(sha) + "\",\"contentType\":\"application/javascript\",\"url\":\"http://s/"
          + sha + "\"},\"assets\":[],\"metadata\":{},\"extra\":{}}";
      p.add(new PlatformUpdate(platform, id, "2026-01-01T00:00:00.000Z", body, null, null, List.of()));
    }
    return new UpdateGroup(name, UpdateGroup.KIND_UPDATE, branch, Scenario.RTV, null, null, null, null, null, p);
  }

  private static String base64Url(String hex) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(HexFormat.of().parseHex(hex));
  }

  private static LaunchAssetStored stored(String sha) {
    return new LaunchAssetStored(sha, "application/javascript", 10, List.of(new AssetVariant("identity", sha, 10, "http://s/" + sha)));
  }

  private static BundlePatch patch(String target, String base, String baseUpdateId, String sha) {
    return new BundlePatch("ios", target, base, List.of(baseUpdateId), sha, 3, "http://s/" + sha);
  }
}
