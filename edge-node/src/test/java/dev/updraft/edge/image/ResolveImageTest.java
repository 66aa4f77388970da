package dev.updraft.edge.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.CheckIn;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Image and delta, in the style of Kafka's {@code FeaturesImageTest}: image1 + delta(rest) equals the
 * image of the whole log, and every prefix of the log replays the same way however it is batched, with
 * the same answers to devices.
 */
class ResolveImageTest {
  private static final List<EventEnvelope> LOG = Scenario.full().events;

  @Test
  void imageOfAPrefixPlusDeltaOfTheRestEqualsTheImageOfTheWholeLog() {
    ResolveImage whole = Scenario.replay(ResolveImage.EMPTY, LOG);
    for (int k = 0; k <= LOG.size(); k++) {
      ResolveImage image1 = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, k));
      ResolveImage image2 = Scenario.replay(image1, LOG.subList(k, LOG.size()));
      assertThat(image2).as("split at %d", k).isEqualTo(whole);
      assertThat(answers(image2)).as("answers, split at %d", k).isEqualTo(answers(whole));
    }
  }

  @Test
  void everyPrefixReplaysTheSameInOneDeltaAndOneDeltaPerEvent() {
    for (int i = 0; i <= LOG.size(); i++) {
      List<EventEnvelope> prefix = LOG.subList(0, i);
      ResolveImage batched = Scenario.replay(ResolveImage.EMPTY, prefix);
      ResolveImage stepwise = Scenario.replayOneByOne(ResolveImage.EMPTY, prefix);
      assertThat(stepwise).as("prefix %d", i).isEqualTo(batched);
      assertThat(answers(stepwise)).as("answers, prefix %d", i).isEqualTo(answers(batched));
    }
  }

  @Test
  void replayingAnEventAgainIsADuplicateAndChangesNothing() {
    ResolveImage whole = Scenario.replay(ResolveImage.EMPTY, LOG);
    ImageDelta d = new ImageDelta(whole);
    assertThat(d.replay(LOG.get(3))).isEqualTo(ImageDelta.Replayed.DUPLICATE);
    assertThat(d.isEmpty()).isTrue();
    assertThat(d.apply()).isSameAs(whole);
  }

  @Test
  void emptyDeltaAppliesToTheSameImage() {
    assertThat(new ImageDelta(ResolveImage.EMPTY).apply()).isSameAs(ResolveImage.EMPTY);
  }

  @Test
  void skippedUnknownEventUsesUpItsSequence() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, 2));
    ImageDelta d = new ImageDelta(img);
    d.skip(Scenario.APP, 3);
    assertThat(d.nextSequence(Scenario.APP)).isEqualTo(4);
    assertThat(d.apply().app(Scenario.APP).lastSequence()).isEqualTo(3);
  }

  @Test
  void countsAppsGroupsAndBytes() {
    ResolveImage whole = Scenario.replay(ResolveImage.EMPTY, LOG);
    assertThat(whole.appCount()).isEqualTo(1);
    assertThat(whole.groupCount()).isEqualTo(7); // g1..g7, g4 reverted but kept
    assertThat(whole.bytes()).isGreaterThan(0);
  }

  @Test
  void onlyTheGroupsTheRetentionRuleHoldsKeepPreparedResponses() {
    // per line the newest AppDelta.WINDOW groups (the head and what a device that reported newer ones
    // failed gets, from the head or from a running rollout's control), each prepared once; older ones are
    // dropped for good, bodies and all
    Scenario s = new Scenario();
    for (int i = 1; i <= 9; i++) {
      s.add(new EventPayload.UpdatePublished(Scenario.group("g" + i, "main", null)));
    }
    AppImage nine = Scenario.replay(ResolveImage.EMPTY, s.events).app(Scenario.APP);
    assertThat(AppDelta.WINDOW).isEqualTo(7);
    assertThat(nine.prepared.keySet()).containsExactlyInAnyOrderElementsOf(entries(3, 9));
    assertThat(nine.groupCount()).isEqualTo(AppDelta.WINDOW);
    assertThat(nine.slot("main", Scenario.RTV, Platforms.IOS).fromHead).hasSize(Resolver.FALLBACK_DEPTH);

    s.add(new EventPayload.UpdatePublished(Scenario.group("g10", "main", new EventPayload.Rollout("r10", 10, "g9", null))));
    AppImage rolling = Scenario.replay(ResolveImage.EMPTY, s.events).app(Scenario.APP);
    assertThat(rolling.prepared.keySet()).containsExactlyInAnyOrderElementsOf(entries(4, 10));
    Slot slot = rolling.slot("main", Scenario.RTV, Platforms.IOS);
    assertThat(slot.fromControl).as("six entries from the control down").hasSize(Resolver.FALLBACK_DEPTH);
    assertThat(slot.fromControl[Resolver.FALLBACK_DEPTH - 1].entryId()).isEqualTo("g4-ios");

    s.add(new EventPayload.RolloutFinished("g10", "r10"));
    AppImage finished = Scenario.replay(Scenario.replay(ResolveImage.EMPTY, s.events.subList(0, 10)),
        s.events.subList(10, 11)).app(Scenario.APP);
    assertThat(finished.prepared.keySet()).containsExactlyInAnyOrderElementsOf(entries(4, 10));
    assertThat(finished.slot("main", Scenario.RTV, Platforms.IOS).fromControl).isNull();
    assertThat(finished).isEqualTo(Scenario.replay(ResolveImage.EMPTY, s.events).app(Scenario.APP));
  }

  /** The iOS and Android entry ids of groups g{from}..g{to}. */
  private static List<String> entries(int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i <= to; i++) {
      out.add("g" + i + "-ios");
      out.add("g" + i + "-android");
    }
    return out;
  }

  @Test
  void publishedUpdateIsServedAfterAppCreatedAndMapping() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, 4));
    Decision d = decide(img, "ios", "production", "client-a", null);
    assertThat(d.kind()).isEqualTo(Decision.Kind.MANIFEST);
    assertThat(d.servedUpdateId()).isEqualTo("g1-ios");
    assertThat(d.servedGroupId()).isEqualTo("g1");
    assertThat(d.branch()).isEqualTo("main");
    assertThat(d.reason()).isEqualTo(CheckIn.REASON_NEW_UPDATE);
    assertThat(body(d)).contains(Scenario.body("g1-ios"));
  }

  @Test
  void revertedRolloutIsReplacedAndRenewalReplacesTheBody() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, 12));
    // a device outside both branch rollout (bucket >= 2000) and inside any percentage: g5 for everyone on main
    for (String client : List.of("c1", "c2", "c3", "c4", "c5")) {
      Decision d = decide(img, "ios", "main", client, null);
      assertThat(d.servedUpdateId()).isEqualTo("g5-ios");
      assertThat(body(d)).contains(Scenario.body("g5-ios") + " \r\n"); // the renewed body ends with a space
    }
  }

  @Test
  void signingKeyBringsSignedNoUpdateAndResignedBodies() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, 13));
    AppImage app = img.app(Scenario.APP);
    assertThat(app.signs()).isTrue();
    assertThat(app.keyId()).isEqualTo("main");
    assertThat(app.noUpdate().signature().toString()).isEqualTo("sig=\"AAAA\", keyid=\"main\"");
    Decision android = decide(img, "android", "main", "c1", null);
    assertThat(android.prepared().signature().toString()).isEqualTo("sig=\"BBBB\", keyid=\"main\"");
    Decision ios = decide(img, "ios", "main", "c1", null);
    assertThat((Object) ios.prepared().signature()).isNull(); // renewed unsigned before the key, not re-signed
  }

  @Test
  void rollbackIsTheNewestEntryOfItsBranchAndRuntime() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG);
    Decision d = decide(img, "ios", "main", "c1", null);
    assertThat(d.kind()).isEqualTo(Decision.Kind.ROLLBACK);
    assertThat(d.servedGroupId()).isEqualTo("g7");
    Decision other = Resolver.resolve(img.app(Scenario.APP), Platforms.IOS, "2.0.0", "main", "c1", null, null,
        List.of(), 1);
    assertThat(other.servedUpdateId()).isEqualTo("g6-ios"); // runtime 2.0.0 is a line of its own
  }

  @Test
  void renewalOfAnUnknownUpdateIsInconsistentAndLeavesTheImageAlone() {
    ResolveImage img = Scenario.replay(ResolveImage.EMPTY, LOG.subList(0, 4));
    ImageDelta d = new ImageDelta(img);
    EventEnvelope renew = EventEnvelope.of(Scenario.APP, 5, Scenario.T0, "system",
        new EventPayload.ManifestsRenewed("x", List.of(new EventPayload.Renewal("nope", "{}", null))));
    assertThat(d.replay(renew)).isEqualTo(ImageDelta.Replayed.INCONSISTENT);
    ResolveImage after = d.apply();
    assertThat(after.app(Scenario.APP).lastSequence()).isEqualTo(5);
    assertThat(decide(after, "ios", "production", "c", null).servedUpdateId()).isEqualTo("g1-ios");
  }

  static Decision decide(ResolveImage img, String platform, String channel, String client, String current) {
    return Resolver.resolve(img.app(Scenario.APP), Platforms.of(platform), Scenario.RTV, channel, client, current, null,
        List.of(), 1);
  }

  static String body(Decision d) {
    return d.prepared().multipart().toString(StandardCharsets.UTF_8);
  }

  /** What a grid of devices gets: decision and exact bytes, one line per device. */
  static List<String> answers(ResolveImage img) {
    List<String> out = new ArrayList<>();
    AppImage app = img.app(Scenario.APP);
    if (app == null) {
      return out;
    }
    for (String channel : List.of("production", "main", "beta", "nothing")) {
      for (String platform : List.of("ios", "android")) {
        for (String rtv : List.of("1.0.0", "2.0.0")) {
          for (int c = 0; c < 40; c++) {
            for (int protocol = 0; protocol <= 1; protocol++) {
              Decision d = Resolver.resolve(app, Platforms.of(platform), rtv, channel, c == 0 ? null : "client-" + c,
                  null, null, List.of(), protocol);
              out.add(channel + "/" + platform + "/" + rtv + "/" + c + "/" + protocol + " " + d + " "
                  + (d.prepared() == null ? "-" : d.prepared().multipart().toString(StandardCharsets.UTF_8)
                      + d.prepared().multipartSigned()));
            }
          }
        }
      }
    }
    return out;
  }
}
