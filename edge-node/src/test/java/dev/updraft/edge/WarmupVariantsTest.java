package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.edge.image.ImageDelta;
import dev.updraft.edge.image.ResolveImage;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import io.vertx.core.http.RequestOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warm-up builds only the requests it can send: with many apps it holds at most its request count's
 * worth of variants (not every line of every app), and sends exactly what it sent with the whole list.
 */
class WarmupVariantsTest {
  static final Instant T0 = Instant.parse("2026-12-07T05:00:00Z");

  /** {@code apps} apps, each with three branches of one publish (two platforms). */
  static ResolveImage image(int apps) {
    ImageDelta d = new ImageDelta(ResolveImage.EMPTY);
    for (int a = 0; a < apps; a++) {
      String app = String.format("app-%03d", a);
      List<EventPayload> payloads = new ArrayList<>();
      payloads.add(new EventPayload.AppCreated("App " + a));
      for (String branch : List.of("production", "staging", "preview")) {
        String id = app + "-" + branch;
        List<PlatformUpdate> ps = new ArrayList<>();
        for (String platform : List.of("ios", "android")) {
          ps.add(new PlatformUpdate(platform, id + "-" + platform, "2026-12-07T05:00:00.000Z",
              "{\"id\":\"" + id + "-" + platform + "\",\"createdAt\":\"2026-12-07T05:00:00.000Z\",\"runtimeVersion\":\"1.0.0\",\"launchAsset\":{},"
                  + "\"assets\":[],\"metadata\":{},\"extra\":{}}", null, "k", List.of("k")));
        }
        payloads.add(new EventPayload.UpdatePublished(new UpdateGroup(id, UpdateGroup.KIND_UPDATE, branch, "1.0.0", "m", "abc", "idem-" + id,
            null, null, ps)));
      }
      long seq = 0;
      for (EventPayload p : payloads) {
        seq++;
        d.replay(EventEnvelope.of(app, seq, T0.plusSeconds(seq), "test", p));
      }
    }
    return d.apply();
  }

  private static String describe(RequestOptions o) {
    return o.getMethod() + " " + o.getURI() + " " + o.getHeaders();
  }

  @Test
  void theWarmUpHoldsOnlyTheVariantsItSendsAndSendsTheSameRequests() {
    ResolveImage image = image(40);
    List<RequestOptions> all = Warmup.variants(image, "127.0.0.1", 4000, Integer.MAX_VALUE);
    // each app: 3 lines x 2 platforms x 2 protocol versions x 3 accepts x 3 things a device runs, unsigned
    assertThat(all).hasSize(40 * 3 * 2 * 2 * 3 * 3);
    int requests = 500;
    List<RequestOptions> held = Warmup.variants(image, "127.0.0.1", 4000, requests / Warmup.RUN + 1);
    assertThat(held).hasSize(requests / Warmup.RUN + 1);
    assertThat(held.size()).isLessThan(all.size());
    for (int n = 0; n < requests; n++) {
      assertThat(describe(Warmup.pick(held, n))).as("request %d", n).isEqualTo(describe(Warmup.pick(all, n)));
    }
  }

  @Test
  void theWarmUpAsksAsDevicesAskSoThatTheirFirstRequestsFindTheRouteCompiledForThem() {
    ResolveImage image = image(1);
    List<RequestOptions> all = Warmup.variants(image, "127.0.0.1", 4000, Integer.MAX_VALUE);
    // what expo-updates sends on both platforms, and single types
    assertThat(all).extracting(o -> o.getHeaders().get("accept")).containsOnly(
        "multipart/mixed,application/expo+json,application/json", "multipart/mixed", "application/expo+json");
    // the three things a device runs: nothing sent, the update the line serves (a "no update" answer), its embedded bundle
    // after a failed update
    String served = "app-000-production-ios";
    assertThat(all).filteredOn(o -> "production".equals(o.getHeaders().get("expo-channel-name"))
            && "ios".equals(o.getHeaders().get("expo-platform")))
        .extracting(o -> String.valueOf(o.getHeaders().get("expo-current-update-id")))
        .containsOnly("null", served, "00000000-0000-4000-8000-000000000000");
    assertThat(all).filteredOn(o -> o.getHeaders().get("expo-recent-failed-update-ids") != null)
        .allMatch(o -> "00000000-0000-4000-8000-000000000000".equals(o.getHeaders().get("expo-current-update-id")))
        .hasSize(all.size() / 3);
    // new connections as well as kept ones
    List<RequestOptions> closing = all.stream().filter(o -> "close".equals(o.getHeaders().get("connection"))).toList();
    assertThat(closing.size()).isBetween(all.size() / Warmup.CLOSE_EVERY, all.size() / Warmup.CLOSE_EVERY + 1);
    // header names as expo-updates sends them (title case, with what a phone's HTTP stack adds) and lower-cased, half each,
    // on closing connections too
    java.util.function.Predicate<RequestOptions> title = o -> named(o, "Expo-Platform") && named(o, "EAS-Client-ID")
        && named(o, "User-Agent");
    assertThat(all).filteredOn(title).hasSize(all.size() / 2);
    assertThat(all).filteredOn(o -> named(o, "expo-platform") && named(o, "eas-client-id")).hasSize(all.size() / 2);
    assertThat(closing).anyMatch(title).anyMatch(title.negate());
  }

  /** Whether {@code o} has a header named exactly {@code name} (letter case included; a MultiMap's look-ups ignore it). */
  private static boolean named(RequestOptions o, String name) {
    return o.getHeaders().entries().stream().anyMatch(e -> e.getKey().equals(name));
  }
}
