package dev.updraft.edge;

import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.image.ResolveImage;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The edge's {@code /readyz} answer: 503 {@code not-ready} while the image is being built (503
 * {@code kafka-refused} with the reason while Kafka refuses the edge's credentials, TLS or ACLs), 503
 * {@code warming-up} during the warm-up, 503 {@code draining} once the edge was told to stop (it still serves for
 * {@code --drain}, {@link Drain}), 503 {@code image-too-old} past {@code --max-stale}, otherwise 200 with
 * what the image holds, how old it is and where it stands in the log:
 *
 * <ul>
 *   <li>{@code logStalenessSeconds}: seconds since the edge (or the stored image's writer) last heard from the log;
 *   <li>{@code caughtUp}: the image has caught up with the log end seen when Kafka first answered;
 *   <li>{@code servingStoredImage}: the image served is the one stored under {@code --data-dir} and Kafka has not
 *       been caught up with (it could not be reached when the edge started);
 *   <li>{@code image}: {@code source} ({@code stored}: under {@code --data-dir}; {@code storage}: the control plane's
 *       image read from the asset storage, {@code --image-source}; or {@code log}; where it was read is logged, not
 *       shown here: {@code /readyz} is public), {@code ageSeconds}, {@code offsets} (by
 *       events partition, the first offset the image does not hold) and {@code eventsRestored} (event records the
 *       stored image held);
 *   <li>{@code snapshotApps}, {@code eventsReplayed} (events read from Kafka before the image caught up: after a
 *       stored image, only those after its offsets), {@code startMillis}.
 * </ul>
 */
final class Readiness {
  private Readiness() {}

  static void answer(HttpServerRequest req, LiveImage live, Warmup w, Drain drain, String staleness) {
    ResolveImage image = live.image();
    if (drain != null && drain.started()) {
      req.response().setStatusCode(503).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("draining", String.format(Locale.ROOT, "stopping: still answering requests for %.1f s more"
              + " (--drain), then closing; take this edge out of rotation", drain.secondsLeft(System.nanoTime()))));
    } else if (live.ready() && w != null && !w.done()) {
      req.response().setStatusCode(503).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("warming-up", "exercising the manifest route on its image before taking traffic"
              + " (--warmup-requests): apps=" + image.appCount() + " groups=" + image.groupCount()));
    } else if (live.ready() && live.tooStale()) {
      req.response().setStatusCode(503).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("image-too-old", tooOld(live)));
    } else if (live.ready()) {
      req.response().putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON).end("{\"ready\":true,\"apps\":"
          + image.appCount() + ",\"groups\":" + image.groupCount() + ",\"logStalenessSeconds\":" + staleness
          + ",\"caughtUp\":" + live.caughtUp() + ",\"servingStoredImage\":" + live.servingStored()
          + ",\"image\":" + imageJson(live)
          + ",\"snapshotApps\":" + live.snapshotApps() + ",\"eventsReplayed\":" + live.eventsReplayed()
          + ",\"startMillis\":" + live.phases().json() + "}");
    } else if (live.refusal() != null) {
      req.response().setStatusCode(503).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("kafka-refused", live.refusal()));
    } else {
      req.response().setStatusCode(503).putHeader(Names.CONTENT_TYPE, Names.APPLICATION_JSON)
          .end(ErrorBody.of("not-ready", "still reading the event log: apps=" + image.appCount() + " groups="
              + image.groupCount()));
    }
  }

  private static String imageJson(LiveImage live) {
    String source = live.fromStorage() ? "storage" : live.fromStore() ? "stored" : "log";
    StringBuilder b = new StringBuilder("{\"source\":\"").append(source).append("\",\"ageSeconds\":")
        .append(String.format(Locale.ROOT, "%.3f", live.stalenessNanos() / 1e9)).append(",\"offsets\":{");
    boolean first = true;
    for (Map.Entry<Integer, Long> e : new TreeMap<>(live.offsets()).entrySet()) {
      b.append(first ? "" : ",").append('"').append(e.getKey()).append("\":").append(e.getValue());
      first = false;
    }
    return b.append("},\"eventsRestored\":").append(live.eventsRestored()).append('}').toString();
  }

  /** Why an image past {@code --max-stale} is not served. */
  static String tooOld(LiveImage live) {
    return String.format(Locale.ROOT, "this edge's image is %.0f s old (it last heard from the event log then), above --max-stale %d s;"
        + " it serves again once it hears from Kafka (image offsets %s)", live.stalenessNanos() / 1e9,
        live.maxStaleNanos() / 1_000_000_000L, new TreeMap<>(live.offsets()));
  }
}
