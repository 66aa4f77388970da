package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.BundlePatch;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.ChannelEvents.BranchRollout;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bytes written by schema version 1 must keep decoding to the same values. The expected values are
 * written out by hand here; the golden files are never regenerated from the code.
 */
class GoldenFilesTest {

  static final String MANIFEST_BODY =
      "{\"id\":\"9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f\",\"createdAt\":\"2026-11-30T10:00:05.000Z\","
          + "\"runtimeVersion\":\"1.0.0\",\"launchAsset\":{\"hash\":\"dzAAwFZchzfqBMfur18PkI6EZWpSsu-T4dC_xsDdOx8\","
          + "\"key\":\"a15905a51887436352fc107e5a9c5ef6\",\"contentType\":\"application/javascript\","
          + "\"url\":\"http://127.0.0.1:8080/assets/a15905a51887436352fc107e5a9c5ef6\"},\"assets\":[],"
          + "\"metadata\":{},\"extra\":{}}";

  static final UpdateGroup ROLLBACK_GROUP =
      new UpdateGroup(
          "5b0e3c0a-1111-4a4a-8b8b-000000000002",
          UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED,
          "production",
          "1.0.0",
          null,
          null,
          null,
          null,
          null,
          List.of(
              new PlatformUpdate(
                  "android",
                  "0b6d8f3a-2222-4b4b-9c9c-000000000003",
                  "2026-11-30T11:00:00.000Z",
                  "{\"type\":\"rollBackToEmbedded\",\"parameters\":{\"commitTime\":\"2026-11-30T11:00:00.000Z\"}}",
                  null,
                  null,
                  List.of())));

  static final Map<EventType, EventPayload> EXPECTED =
      Map.ofEntries(
          Map.entry(EventType.APP_CREATED, new AppCreated("Demo app")),
          Map.entry(
              EventType.TOKEN_ISSUED,
              new TokenIssued(
                  "tok_3h5k", "publish", "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae", "ci", null)),
          Map.entry(EventType.TOKEN_REVOKED, new TokenRevoked("tok_3h5k")),
          Map.entry(
              EventType.SIGNING_KEY_REGISTERED,
              new SigningKeyRegistered(
                  "main",
                  "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
                  "ab12",
                  "{\"type\":\"noUpdateAvailable\"}",
                  "sig=\"bm91cGRhdGU=\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"",
                  List.of(
                      new Renewal(
                          "9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f",
                          "{}",
                          "sig=\"cmVzaWduZWQ=\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"")))),
          Map.entry(
              EventType.CHANNEL_MAPPED,
              new ChannelMapped(
                  "production",
                  "release-1",
                  // written before rollouts named their bucketing: absent, read as null
                  new BranchRollout("c1a2b3c4-0000-4000-8000-00000000000a", "release-2", 25, "1.0.0", null))),
          Map.entry(
              EventType.UPDATE_PUBLISHED,
              new UpdatePublished(
                  new UpdateGroup(
                      "5b0e3c0a-1111-4a4a-8b8b-000000000001",
                      UpdateGroup.KIND_UPDATE,
                      "production",
                      "1.0.0",
                      "Fix the login button",
                      "3f2a1b0",
                      "ci-run-42",
                      null,
                      new Rollout(
                          "7c9e6679-7425-40de-944b-e07fc1f90ae7",
                          10,
                          "5b0e3c0a-1111-4a4a-8b8b-000000000000",
                          new RolloutGuard(5.0, 100, 3600),
                          null), // written before rollouts named their bucketing
                      List.of(
                          new PlatformUpdate(
                              "ios",
                              "9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f",
                              "2026-11-30T10:00:05.000Z",
                              MANIFEST_BODY,
                              "sig=\"c2lnbmF0dXJl\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"",
                              "a15905a51887436352fc107e5a9c5ef6",
                              List.of("a15905a51887436352fc107e5a9c5ef6")))))),
          Map.entry(EventType.ROLLED_BACK_TO_EMBEDDED, new RolledBackToEmbedded(ROLLBACK_GROUP)),
          Map.entry(
              EventType.ROLLOUT_CHANGED,
              new RolloutChanged(
                  "5b0e3c0a-1111-4a4a-8b8b-000000000001", "7c9e6679-7425-40de-944b-e07fc1f90ae7", 50, null)),
          Map.entry(
              EventType.ROLLOUT_FINISHED,
              new RolloutFinished("5b0e3c0a-1111-4a4a-8b8b-000000000001", "7c9e6679-7425-40de-944b-e07fc1f90ae7")),
          Map.entry(
              EventType.ROLLOUT_REVERTED,
              new RolloutReverted(
                  "5b0e3c0a-1111-4a4a-8b8b-000000000001",
                  "7c9e6679-7425-40de-944b-e07fc1f90ae7",
                  "failure rate 12.5% among 160 devices above 5.0%",
                  ROLLBACK_GROUP)),
          Map.entry(
              EventType.MANIFESTS_RENEWED,
              new ManifestsRenewed(
                  "signed asset URLs expire 2026-12-07T10:00:00Z",
                  List.of(new Renewal("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f", "{}", null)))),
          Map.entry(
              EventType.LAUNCH_ASSET_STORED,
              new LaunchAssetStored(
                  "773000c0565c8737ea04c7eeaf5f0f908e84656a52b2ef93e1d0bfc6c0dd3b1f",
                  "application/javascript",
                  1448572,
                  List.of(
                      new AssetVariant(
                          "identity", "773000c0565c8737ea04c7eeaf5f0f908e84656a52b2ef93e1d0bfc6c0dd3b1f", 1448572,
                          "http://127.0.0.1:8080/assets/demo/773000c0565c8737ea04c7eeaf5f0f908e84656a52b2ef93e1d0bfc6c0dd3b1f.js"),
                      new AssetVariant(
                          "zstd", "4b1f8e0a3c9d2e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f", 571003,
                          "http://127.0.0.1:8080/assets/demo/4b1f8e0a3c9d2e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f")))),
          Map.entry(
              EventType.PATCHES_COMPUTED,
              new PatchesComputed(
                  "5b0e3c0a-1111-4a4a-8b8b-000000000001",
                  List.of(
                      new BundlePatch(
                          "ios",
                          "773000c0565c8737ea04c7eeaf5f0f908e84656a52b2ef93e1d0bfc6c0dd3b1f",
                          "0c5e7d1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6",
                          List.of("7d2a1b3c-0000-4000-8000-00000000000a"),
                          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                          109860,
                          "http://127.0.0.1:8080/assets/demo/e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.bsdiff")))),
          Map.entry(
              EventType.BUILD_REGISTERED,
              new BuildRegistered(
                  "android", "1.0.0", "1e2d3c4b-0000-4000-8000-0000000000e1",
                  "0c5e7d1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6", 1453555, null)),
          Map.entry(EventType.SIGNING_KEY_RETIRED, new SigningKeyRetired("main", null, null, null)),
          Map.entry(EventType.APP_UPDATED, new AppUpdated("production")),
          Map.entry(
              EventType.UPDATES_DELETED,
              new EventPayload.UpdatesDeleted(
                  List.of("5b0e3c0a-1111-4a4a-8b8b-000000000001", "5b0e3c0a-1111-4a4a-8b8b-000000000002"),
                  "retention: keep 10 on branch production")),
          Map.entry(EventType.UPDATE_PINNED, new EventPayload.UpdatePinned("5b0e3c0a-1111-4a4a-8b8b-000000000001", true)),
          Map.entry(EventType.BRANCH_DELETED, new EventPayload.BranchDeleted("staging")),
          Map.entry(EventType.CHANNEL_DELETED, new EventPayload.ChannelDeleted("beta")),
          Map.entry(EventType.APP_DELETED, new EventPayload.AppDeleted("Demo")),
          Map.entry(EventType.RETENTION_SET, new EventPayload.RetentionSet("production", 10, 7776000L)));

  static final Map<EventType, Long> SEQUENCE =
      Map.ofEntries(
          Map.entry(EventType.APP_CREATED, 1L),
          Map.entry(EventType.TOKEN_ISSUED, 2L),
          Map.entry(EventType.TOKEN_REVOKED, 3L),
          Map.entry(EventType.SIGNING_KEY_REGISTERED, 4L),
          Map.entry(EventType.CHANNEL_MAPPED, 5L),
          Map.entry(EventType.UPDATE_PUBLISHED, 6L),
          Map.entry(EventType.ROLLED_BACK_TO_EMBEDDED, 7L),
          Map.entry(EventType.ROLLOUT_CHANGED, 8L),
          Map.entry(EventType.ROLLOUT_FINISHED, 9L),
          Map.entry(EventType.ROLLOUT_REVERTED, 10L),
          Map.entry(EventType.MANIFESTS_RENEWED, 11L),
          Map.entry(EventType.LAUNCH_ASSET_STORED, 12L),
          Map.entry(EventType.PATCHES_COMPUTED, 13L),
          Map.entry(EventType.BUILD_REGISTERED, 14L),
          Map.entry(EventType.SIGNING_KEY_RETIRED, 14L),
          Map.entry(EventType.APP_UPDATED, 15L),
          Map.entry(EventType.UPDATES_DELETED, 16L),
          Map.entry(EventType.UPDATE_PINNED, 17L),
          Map.entry(EventType.BRANCH_DELETED, 18L),
          Map.entry(EventType.CHANNEL_DELETED, 19L),
          Map.entry(EventType.APP_DELETED, 20L),
          Map.entry(EventType.RETENTION_SET, 21L));

  static byte[] golden(String path) throws IOException {
    try (InputStream in = GoldenFilesTest.class.getResourceAsStream(path)) {
      assertThat(in).as("golden file %s", path).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void everyEventTypeHasAGoldenFileForVersion1() {
    Set<EventType> covered = EnumSet.noneOf(EventType.class);
    covered.addAll(EXPECTED.keySet());
    assertThat(covered).containsExactlyInAnyOrder(EventType.values());
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void version1BytesStillDecodeToTheSameValue(EventType type) throws IOException {
    Decoded decoded = EventCodec.decode(golden("/golden/v1/" + type.wireName() + ".json"));

    assertThat(decoded).isInstanceOf(Decoded.Known.class);
    EventEnvelope e = ((Decoded.Known) decoded).envelope();
    long seq = SEQUENCE.get(type);
    assertThat(e.type()).isEqualTo(type);
    assertThat(e.schemaVersion()).isEqualTo(1);
    assertThat(e.appId()).isEqualTo("demo");
    assertThat(e.sequence()).isEqualTo(seq);
    assertThat(e.eventId()).isEqualTo(UUID.fromString(String.format("00000000-0000-4000-8000-%012d", seq)));
    assertThat(e.occurredAt()).isEqualTo(Instant.parse(String.format("2026-11-30T10:00:%02d.123Z", seq)));
    assertThat(e.payload()).isEqualTo(EXPECTED.get(type));
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void encodingThenDecodingKeepsEveryField(EventType type) {
    EventEnvelope original = EventEnvelope.of("demo", 3, Instant.parse("2026-11-30T10:00:00Z"), "tok_1", EXPECTED.get(type));

    Decoded decoded = EventCodec.decode(EventCodec.encode(original));

    assertThat(decoded).isEqualTo(new Decoded.Known(original));
  }

  @Test
  void manifestBodyTravelsByteForByte() throws IOException {
    EventEnvelope e = ((Decoded.Known) EventCodec.decode(golden("/golden/v1/update.published.json"))).envelope();
    String body = ((UpdatePublished) e.payload()).group().platforms().get(0).body();

    assertThat(body.getBytes(java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo(MANIFEST_BODY.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void rolloutsWithoutBucketingReadAsTheFirstAlgorithm() throws IOException {
    UpdatePublished published = (UpdatePublished) known("/golden/v1/update.published.json").payload();
    ChannelMapped mapped = (ChannelMapped) known("/golden/v1/channel.mapped.json").payload();

    assertThat(published.group().rollout().bucketing()).isNull();
    assertThat(mapped.rollout().bucketing()).isNull();
    assertThat(Bucketing.Algorithm.named(published.group().rollout().bucketing()))
        .isEqualTo(Bucketing.Algorithm.SHA256_V1);
    assertThat(Bucketing.Algorithm.named(mapped.rollout().bucketing())).isEqualTo(Bucketing.Algorithm.SHA256_V1);
  }

  @Test
  void rolloutsNamingTheirBucketingDecode() throws IOException {
    EventEnvelope p = known("/golden/v1/update.published.with-bucketing.json");
    EventEnvelope c = known("/golden/v1/channel.mapped.with-bucketing.json");

    UpdateGroup g = ((UpdatePublished) EXPECTED.get(EventType.UPDATE_PUBLISHED)).group();
    Rollout r = g.rollout();
    assertThat(p.sequence()).isEqualTo(12);
    assertThat(p.payload())
        .isEqualTo(new UpdatePublished(new UpdateGroup(g.groupId(), g.kind(), g.branch(), g.runtimeVersion(),
            g.message(), g.gitCommitHash(), g.idempotencyKey(), g.republishedFrom(),
            new Rollout(r.rolloutId(), r.percentage(), r.controlGroupId(), r.guard(), "sha256-v1"), g.platforms())));
    assertThat(c.sequence()).isEqualTo(13);
    assertThat(c.payload())
        .isEqualTo(
            new ChannelMapped(
                "production",
                "release-1",
                new BranchRollout("c1a2b3c4-0000-4000-8000-00000000000a", "release-2", 25, "1.0.0", "sha256-v1")));
  }

  @Test
  void newRolloutsRecordTheCurrentBucketing() {
    Rollout r = new Rollout("r", 10, null, null);
    BranchRollout b = new BranchRollout("b", "beta", 10, null);
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "tok",
        new ChannelMapped("production", "main", b))), java.nio.charset.StandardCharsets.UTF_8);

    assertThat(r.bucketing()).isEqualTo(Bucketing.CURRENT.wireName()).isEqualTo("sha256-v1");
    assertThat(b.bucketing()).isEqualTo(Bucketing.CURRENT.wireName());
    assertThat(json).contains("\"bucketing\":\"sha256-v1\"");
  }

  @Test
  void aBranchRolloutKeptAtAnotherShareKeepsItsBucketing() {
    BranchRollout old = new BranchRollout("b", "beta", 10, "1.0.0", null);

    assertThat(old.withPercentage(30)).isEqualTo(new BranchRollout("b", "beta", 30, "1.0.0", null));
    assertThat(new BranchRollout("b", "beta", 10, null, "murmur3-v9").withPercentage(30).bucketing())
        .isEqualTo("murmur3-v9");
  }

  @Test
  void aRolloutNamingAnUnknownBucketingStillDecodes() {
    String json = "{\"eventId\":\"00000000-0000-4000-8000-000000000001\",\"type\":\"channel.mapped\","
        + "\"schemaVersion\":1,\"appId\":\"demo\",\"sequence\":1,\"occurredAt\":\"2026-11-30T10:00:01Z\","
        + "\"actor\":\"a\",\"payload\":{\"channel\":\"production\",\"branch\":\"main\",\"rollout\":{"
        + "\"rolloutId\":\"b\",\"branch\":\"beta\",\"percentage\":10,\"bucketing\":\"murmur3-v9\"}}}";

    EventEnvelope e = ((Decoded.Known) EventCodec.decode(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
        .envelope();

    String name = ((ChannelMapped) e.payload()).rollout().bucketing();
    assertThat(name).isEqualTo("murmur3-v9");
    assertThat(Bucketing.Algorithm.named(name)).isNull(); // what to do then is the reader's policy
  }

  @Test
  void registrationsWrittenBeforeTheKeyRingReplaceTheRing() throws IOException {
    SigningKeyRegistered old = (SigningKeyRegistered) known("/golden/v1/signing-key.registered.json").payload();

    assertThat(old.ring()).isNull();
    assertThat(old.joinsRing()).isFalse();
    assertThat(old.certificateChainPem()).isNull();
    assertThat(old.resigned().get(0).signatures()).isEmpty();
  }

  @Test
  void ringRegistrationsCarryTheChainAndEveryKeysSignature() throws IOException {
    EventEnvelope e = known("/golden/v1/signing-key.registered.with-ring.json");
    String main = "sig=\"bWFpbg==\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";
    String leaf = "sig=\"bGVhZg==\", keyid=\"leaf-2027\", alg=\"rsa-v1_5-sha256\"";
    String leafPem = "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";

    assertThat(e.sequence()).isEqualTo(16);
    assertThat(e.payload())
        .isEqualTo(
            new SigningKeyRegistered(
                "leaf-2027",
                leafPem,
                "cd34",
                "{\"type\":\"noUpdateAvailable\"}",
                leaf,
                List.of(new Renewal("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f", "{}", main,
                    Map.of("main", main, "leaf-2027", leaf))),
                leafPem + "-----BEGIN CERTIFICATE-----\nMIID\n-----END CERTIFICATE-----\n",
                true));
    assertThat(((SigningKeyRegistered) e.payload()).joinsRing()).isTrue();
  }

  @Test
  void updatesCarryOneSignaturePerKeyBesideThePrimaryOne() throws IOException {
    EventEnvelope e = known("/golden/v1/update.published.with-signatures.json");
    String main = "sig=\"bWFpbg==\", keyid=\"main\", alg=\"rsa-v1_5-sha256\"";
    String next = "sig=\"bmV4dA==\", keyid=\"next\", alg=\"rsa-v1_5-sha256\"";

    assertThat(e.sequence()).isEqualTo(17);
    PlatformUpdate u = ((UpdatePublished) e.payload()).group().platform("android");
    assertThat(u)
        .isEqualTo(
            new PlatformUpdate(
                "android",
                "0b6d8f3a-2222-4b4b-9c9c-000000000004",
                "2026-11-30T10:00:16.000Z",
                "{\"id\":\"0b6d8f3a-2222-4b4b-9c9c-000000000004\",\"metadata\":{\"branchName\":\"production\"}}",
                main,
                "a15905a51887436352fc107e5a9c5ef6",
                List.of("a15905a51887436352fc107e5a9c5ef6"),
                Map.of("next", next, "main", main)));
    // the entry of the older golden file has no per-key signatures: only the one it names
    PlatformUpdate older = ((UpdatePublished) known("/golden/v1/update.published.json").payload()).group().platform("ios");
    assertThat(older.signatures()).isEmpty();
  }

  @Test
  void updatesCarryTheirSourceMapAndOlderOnesReadWithoutOne() throws IOException {
    PlatformUpdate u = ((UpdatePublished) known("/golden/v1/update.published.with-source-map.json").payload()).group().platform("ios");
    assertThat(u.sourceMap()).isEqualTo("5f0c6a3b1e2d4c5b6a7980f1e2d3c4b5a69788f0e1d2c3b4a5968778695a4b3c");
    assertThat(u.launchAssetKey()).isEqualTo("a15905a51887436352fc107e5a9c5ef6");
    assertThat(((UpdatePublished) known("/golden/v1/update.published.json").payload()).group().platform("ios").sourceMap()).isNull();
    assertThat(((UpdatePublished) known("/golden/v1/update.published.with-signatures.json").payload()).group().platform("android")
        .sourceMap()).isNull();
  }

  @Test
  void entriesWithoutASourceMapAreWrittenAsBefore() {
    PlatformUpdate u = new PlatformUpdate("ios", "u", "2026-11-30T10:00:05.000Z", "{}", null, null, List.of());
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "tok",
        new UpdatePublished(new UpdateGroup("g", UpdateGroup.KIND_UPDATE, "b", "1", null, null, null, null, null,
            List.of(u))))), java.nio.charset.StandardCharsets.UTF_8);

    assertThat(json).doesNotContain("sourceMap");
  }

  @Test
  void entriesWithoutPerKeySignaturesAreWrittenAsBefore() {
    PlatformUpdate u = new PlatformUpdate("ios", "u", "2026-11-30T10:00:05.000Z", "{}", null, null, List.of());
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "tok",
        new UpdatePublished(new UpdateGroup("g", UpdateGroup.KIND_UPDATE, "b", "1", null, null, null, null, null,
            List.of(u))))), java.nio.charset.StandardCharsets.UTF_8);

    assertThat(json).doesNotContain("signatures");
  }

  @Test
  void mappingsWrittenBeforeThePauseFieldServeTheirDevices() throws IOException {
    ChannelMapped old = (ChannelMapped) known("/golden/v1/channel.mapped.json").payload();
    ChannelMapped withBucketing = (ChannelMapped) known("/golden/v1/channel.mapped.with-bucketing.json").payload();

    assertThat(old.paused()).isNull();
    assertThat(old.pausedNow()).isFalse();
    assertThat(withBucketing.pausedNow()).isFalse();
  }

  @Test
  void aPausedMappingDecodesWithItsRolloutKept() throws IOException {
    EventEnvelope e = known("/golden/v1/channel.mapped.paused.json");

    assertThat(e.sequence()).isEqualTo(14);
    assertThat(e.payload())
        .isEqualTo(new ChannelMapped("production", "release-1",
            new BranchRollout("c1a2b3c4-0000-4000-8000-00000000000a", "release-2", 25, "1.0.0", "sha256-v1"), true));
    assertThat(((ChannelMapped) e.payload()).pausedNow()).isTrue();
  }

  @Test
  void aResumedMappingIsWrittenWithoutThePauseField() {
    ChannelMapped paused = new ChannelMapped("production", "main", null).withPaused(true);
    String pausedJson = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "tok", paused)),
        java.nio.charset.StandardCharsets.UTF_8);
    String resumedJson = new String(EventCodec.encode(EventEnvelope.of("demo", 2, Instant.EPOCH, "tok", paused.withPaused(false))),
        java.nio.charset.StandardCharsets.UTF_8);

    assertThat(pausedJson).contains("\"paused\":true");
    assertThat(resumedJson).doesNotContain("paused");
  }

  @Test
  void buildsRegisteredBeforeTheVersionFieldHaveAnUnknownVersion() throws IOException {
    BuildRegistered old = (BuildRegistered) known("/golden/v1/build.registered.json").payload();

    assertThat(old.expoUpdatesVersion()).isNull();
  }

  @Test
  void aBuildRegisteredWithItsExpoUpdatesVersionDecodes() throws IOException {
    EventEnvelope e = known("/golden/v1/build.registered.with-version.json");

    assertThat(e.sequence()).isEqualTo(15);
    assertThat(e.payload()).isEqualTo(new BuildRegistered("ios", "1.0.0", "1e2d3c4b-0000-4000-8000-0000000000e2",
        "0c5e7d1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6", 1453555, "57.0.24"));
  }

  @Test
  void aBuildWithoutAVersionIsWrittenWithoutTheField() {
    String json = new String(EventCodec.encode(EventEnvelope.of("demo", 1, Instant.EPOCH, "tok",
        new BuildRegistered("ios", "1", "e1", "bb", 10, null))), java.nio.charset.StandardCharsets.UTF_8);

    assertThat(json).doesNotContain("expoUpdatesVersion");
  }

  @Test
  void checkInWithSkippedUpdatesDecodes() throws IOException {
    CheckIn c = CheckInCodec.decode(golden("/golden-checkin/v1/check-in.with-skipped.json"));

    assertThat(c.skippedUpdateIds()).containsExactly("11111111-2222-4333-8444-555555555555");
    assertThat(c.reason()).isEqualTo(CheckIn.REASON_SKIPPED_FAILED);
    assertThat(CheckInCodec.decode(golden("/golden-checkin/v1/check-in.json")).skippedUpdateIds()).isEmpty();
  }

  private static EventEnvelope known(String path) throws IOException {
    Decoded d = EventCodec.decode(golden(path));
    assertThat(d).as(path).isInstanceOf(Decoded.Known.class);
    return ((Decoded.Known) d).envelope();
  }

  @Test
  void checkInVersion1StillDecodes() throws IOException {
    CheckIn c = CheckInCodec.decode(golden("/golden-checkin/v1/check-in.json"));

    assertThat(c)
        .isEqualTo(
            CheckIn.builder()
                .v(1)
                .checkInId("e1c0ffee-0000-4000-8000-000000000001")
                .appId("demo")
                .platform("ios")
                .runtimeVersion("1.0.0")
                .channel("production")
                .clientId("2f8e2c4e-8e1d-4bd5-9a5e-6a3f1e0c9b7d")
                .currentUpdateId("0b6d8f3a-2222-4b4b-9c9c-000000000003")
                .embeddedUpdateId("0b6d8f3a-2222-4b4b-9c9c-000000000003")
                .failedUpdateIds(List.of("11111111-2222-4333-8444-555555555555"))
                .outcome(CheckIn.OUTCOME_UPDATE)
                .reason(CheckIn.REASON_NEW_UPDATE)
                .branch("production")
                .rolloutBucket(417)
                .servedUpdateId("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f")
                .servedGroupId("5b0e3c0a-1111-4a4a-8b8b-000000000001")
                .atEpochMillis(1796032800123L)
                .edgeId("edge-1")
                .build());
  }
}
