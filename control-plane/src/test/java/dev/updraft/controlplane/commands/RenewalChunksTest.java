package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.Renewal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How renewals are cut into events: by count and by size, so no renewal event is larger than the log takes. */
class RenewalChunksTest {
  /** Kafka's default record limit less the event log's framing room: what an events topic created without Updraft's setting takes. */
  private static final int DEFAULT_TOPIC_EVENT_LIMIT = 1_048_588 - 16 * 1024;

  /** A manifest body of {@code assets} assets, each with an S3-style pre-signed URL (~520 characters). */
  private static String body(int update, int assets) {
    StringBuilder b = new StringBuilder("{\"id\":\"").append(update).append("\",\"assets\":[");
    for (int i = 0; i < assets; i++) {
      String key = String.format("%032x", i * 7919L + update);
      b.append(i == 0 ? "" : ",").append("{\"hash\":\"").append("h".repeat(43)).append("\",\"key\":\"").append(key)
          .append("\",\"contentType\":\"image/png\",\"fileExtension\":\".png\",\"url\":\"https://bucket.s3.us-east-1.amazonaws.com/apps/a/")
          .append(key).append("?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLEEXAMPLE%2F20261203%2Fus-east-1%2Fs3%2Faws4_request")
          .append("&X-Amz-Date=20261203T040000Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=").append("f".repeat(64))
          .append("\"}");
    }
    return b.append("]}").toString();
  }

  private static List<Renewal> renewals(int count, int assets) {
    List<Renewal> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(new Renewal("update-" + i, body(i, assets), "sig=\"" + "s".repeat(344) + "\", keyid=\"main\"",
          Map.of("main", "sig=\"" + "s".repeat(344) + "\", keyid=\"main\"", "next", "sig=\"" + "t".repeat(344) + "\", keyid=\"next\"")));
    }
    return out;
  }

  private static int encodedEventBytes(List<Renewal> chunk) {
    return EventCodec.encode(EventEnvelope.of("app", 1, Instant.parse("2026-12-03T04:00:00Z"), "system",
        new ManifestsRenewed("pre-signed asset URLs renewed before expiry", chunk))).length;
  }

  @Test
  void fiftyLargeManifestsWithPresignedUrlsGoInSeveralEventsEachWithinTheDefaultTopicsLimit() {
    List<Renewal> due = renewals(50, 100); // 50 entries of 100 assets: ~3.5 MB in one event before
    assertThat(encodedEventBytes(due)).as("all of them in one event").isGreaterThan(DEFAULT_TOPIC_EVENT_LIMIT);

    List<List<Renewal>> chunks = Renewals.chunks(due, Renewals.RENEWAL_BYTES_PER_EVENT, 50);

    assertThat(chunks).hasSizeGreaterThan(4);
    for (List<Renewal> chunk : chunks) {
      assertThat(encodedEventBytes(chunk)).as("event of %d renewals", chunk.size()).isLessThanOrEqualTo(600 * 1024);
    }
    assertThat(chunks.stream().flatMap(List::stream).toList()).as("every renewal once, in order").isEqualTo(due);
  }

  @Test
  void smallManifestsAreStillCutAtFiftyPerEvent() {
    List<Renewal> due = renewals(120, 3);

    List<List<Renewal>> chunks = Renewals.chunks(due, Renewals.RENEWAL_BYTES_PER_EVENT, 50);

    assertThat(chunks).extracting(List::size).containsExactly(50, 50, 20);
  }

  @Test
  void aRenewalLargerThanTheBudgetIsAnEventOfItsOwn() {
    List<Renewal> due = new ArrayList<>(renewals(1, 3));
    due.add(renewals(1, 1_200).get(0)); // ~800 kB
    due.addAll(renewals(2, 3));

    List<List<Renewal>> chunks = Renewals.chunks(due, Renewals.RENEWAL_BYTES_PER_EVENT, 50);

    assertThat(chunks).extracting(List::size).containsExactly(1, 1, 2);
    assertThat(encodedEventBytes(chunks.get(1))).isGreaterThan(Renewals.RENEWAL_BYTES_PER_EVENT);
  }

  @Test
  void theSizeEstimateIsNeverBelowTheRenewalsEncodedBytes() {
    for (Renewal r : List.of(renewals(1, 0).get(0), renewals(1, 40).get(0),
        new Renewal("u", "{\"quote\":\"\\\"é\u0001✓\"}", null))) {
      int alone = encodedEventBytes(List.of(r)) - encodedEventBytes(List.of());
      assertThat(Renewals.encodedSize(r)).as("estimate for %s…", r.body().substring(0, Math.min(40, r.body().length())))
          .isGreaterThanOrEqualTo(alone);
    }
  }
}
