package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The gauge an alert reads before pre-signed URLs expire: the least lifetime left among servable manifests. */
class UrlLifeLeftTest {
  private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");
  private static final Duration WEEK = Duration.ofDays(7);

  private static ControlState state = ControlState.EMPTY;
  private static long seq;

  private static void at(Instant when, EventPayload p) {
    seq++;
    state = StateFold.apply(state, new EventEnvelope(new UUID(0, seq), p.type(), 1, "app", seq, when, "admin", p));
  }

  private static UpdateGroup group(String id, String branch) {
    return new UpdateGroup(id, UpdateGroup.KIND_UPDATE, branch, "1", null, null, null, null, null, List.of(
        new PlatformUpdate("ios", id + "-ios", "2026-12-01T00:00:00.000Z", "{\"url\":\"" + id + "?X-Amz-Date=1\"}", null, "k", List.of("k"))));
  }

  @Test
  void theOldestRenderingOfAServableManifestSetsItAndOnlyANewBodyResetsIt() {
    state = ControlState.EMPTY;
    seq = 0;
    at(T0, new AppCreated("App"));
    assertThat(Renewals.lifeLeft(state, WEEK, T0)).as("nothing servable").isEqualTo(1.0);
    at(T0, new UpdatePublished(group("g1", "main")));
    at(T0.plus(Duration.ofDays(1)), new UpdatePublished(group("g2", "preview")));

    assertThat(Renewals.lifeLeft(state, WEEK, T0.plus(Duration.ofDays(4)))).as("g1: 3 of 7 days left").isCloseTo(3.0 / 7, within(1e-9));
    assertThat(Renewals.lifeLeft(state, WEEK, T0.plus(Duration.ofDays(8)))).as("expired a day ago").isCloseTo(-1.0 / 7, within(1e-9));
    assertThat(Renewals.lifeLeft(state, null, T0.plus(Duration.ofDays(8)))).as("URLs that do not expire").isEqualTo(1.0);

    // a re-signing (a key joining) keeps the body and its URLs: their age does not change
    at(T0.plus(Duration.ofHours(84)), new ManifestsRenewed("re-signed", List.of(new Renewal("g1-ios", "{\"url\":\"g1?X-Amz-Date=1\"}", "sig"))));
    assertThat(Renewals.lifeLeft(state, WEEK, T0.plus(Duration.ofDays(4)))).isCloseTo(3.0 / 7, within(1e-9));

    // renewed URLs: g2, rendered a day after g1, is now the oldest
    at(T0.plus(Duration.ofHours(85)), new ManifestsRenewed("renewed", List.of(new Renewal("g1-ios", "{\"url\":\"g1?X-Amz-Date=2\"}", "sig"))));
    assertThat(Renewals.lifeLeft(state, WEEK, T0.plus(Duration.ofDays(4)))).isCloseTo(4.0 / 7, within(1e-9));
  }
}
