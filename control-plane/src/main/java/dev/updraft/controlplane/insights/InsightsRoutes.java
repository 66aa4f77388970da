package dev.updraft.controlplane.insights;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import dev.updraft.events.Bucketing;
import dev.updraft.events.CheckIn;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The insights routes (role read): an update group's numbers and the same hour by hour over 7 days, its download
 * funnel ({@code GET /v1/apps/{app}/updates/{groupId}/funnel}, {@link UpdateFunnel}), a channel's adoption, one device's story, and the requests the edges refused. Apps and groups are resolved
 * from the control plane's state; the numbers come from PostgreSQL. PostgreSQL unusable, slow (no answer
 * within {@code --insights-timeout}) or with every pooled connection busy is a 503 {@code insights-unavailable} naming where it was looked for;
 * the publisher API does not depend on it. Thread-safe (state is read per request; the handlers keep none).
 */
final class InsightsRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(InsightsRoutes.class);
  static final int MAX_ID_LENGTH = 200;

  private final ExtensionContext ctx;
  private final TelemetryDb db;
  private final Insights insights;
  private final Clock clock;
  private final Counter unavailable;

  InsightsRoutes(ExtensionContext ctx, TelemetryDb db, Insights insights, Clock clock) {
    this.ctx = ctx;
    this.db = db;
    this.insights = insights;
    this.clock = clock;
    this.unavailable =
        Counter.builder("updraft.insights.unavailable")
            .description("insights requests answered 503 because PostgreSQL could not be used")
            .register(ctx.meterRegistry());
  }

  void mount() {
    ctx.router().get("/v1/apps/:app/insights/updates/:groupId").handler(ctx.authorize(Role.READ)).handler(this::group);
    ctx.router().get("/v1/apps/:app/insights/updates/:groupId/hourly").handler(ctx.authorize(Role.READ)).handler(this::hourly);
    ctx.router().get("/v1/apps/:app/insights/channels/:channel").handler(ctx.authorize(Role.READ)).handler(this::channel);
    ctx.router().get("/v1/apps/:app/devices/:clientId").handler(ctx.authorize(Role.READ)).handler(this::device);
    ctx.router().get("/v1/apps/:app/insights/refusals").handler(ctx.authorize(Role.READ)).handler(this::refusals);
    ctx.router().get("/v1/apps/:app/updates/:groupId/funnel").handler(ctx.authorize(Role.READ)).handler(this::funnel);
  }

  /** The group's download funnel per platform ({@link UpdateFunnel}). */
  private void funnel(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    GroupState g = group(rc, app);
    if (g == null) {
      return;
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    reply(rc, db.ready().compose(v -> new UpdateFunnel(db.pool()).of(app.appId(), g.group())), f -> UpdateFunnel.json(g.groupId(), now, f));
  }

  private void refusals(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    reply(rc, db.ready().compose(v -> insights.refusals(app.appId())), r -> InsightsJson.refusals(app.appId(), r));
  }

  private void group(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    GroupState g = group(rc, app);
    if (g == null) {
      return;
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS); // readable asOf; windows are whole hours anyway
    reply(rc, db.ready().compose(v -> insights.group(app.appId(), g.group(), now)), gi -> InsightsJson.group(g.groupId(), gi));
  }

  /** The group hour by hour over 7 days, with the guard's threshold when its rollout has one. */
  private void hourly(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    GroupState g = group(rc, app);
    if (g == null) {
      return;
    }
    RolloutGuard guard = g.rollout() == null ? null : g.rollout().guard();
    Double threshold = guard == null ? null : guard.maxFailureRatePercent();
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
    reply(rc, db.ready().compose(v -> insights.series(app.appId(), g.group(), now)), s -> InsightsJson.series(g.groupId(), s, threshold));
  }

  private void channel(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    String channel = rc.pathParam("channel");
    if (channel.length() > MAX_ID_LENGTH) {
      ctx.fail(rc, 400, "invalid-channel", "a channel name is at most " + MAX_ID_LENGTH + " characters: got " + channel.length());
      return;
    }
    Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS); // readable asOf; windows are whole hours anyway
    reply(rc, db.ready().compose(v -> insights.channel(app.appId(), channel, now)), InsightsJson::channel);
  }

  private void device(RoutingContext rc) {
    AppState app = app(rc);
    if (app == null) {
      return;
    }
    String clientId = rc.pathParam("clientId").trim();
    if (clientId.isEmpty() || clientId.length() > MAX_ID_LENGTH) {
      ctx.fail(rc, 400, "invalid-parameter",
          "clientId must be the device's EAS-Client-ID (1 to " + MAX_ID_LENGTH + " characters): got " + clientId.length() + " characters");
      return;
    }
    reply(
        rc,
        db.ready().compose(v -> insights.device(app.appId(), clientId)),
        found -> {
          if (found.isEmpty()) {
            return null;
          }
          DeviceRecord d = found.get();
          AppState now = ctx.state().app(app.appId());
          String note = rolloutNote(now, d);
          String unmapped = unmappedNote(now, d);
          String explanation = unmapped == null ? d.explanation() : d.explanation() + "; " + unmapped;
          return InsightsJson.device(d, note == null ? explanation : explanation + "; " + note);
        },
        () -> ctx.fail(rc, 404, "device-not-found",
            "no device with client id " + clientId.toLowerCase(Locale.ROOT) + " has checked in with app " + app.appId()
                + " (client ids are compared in lower case; a device shows up once its first check-in reached the ingester)"));
  }

  /**
   * Why a device got nothing from a channel nobody maps (a mapping deleted, or an {@code updraft-channel}
   * override naming a channel never mapped): such a channel serves the branch of its own name. Null when
   * the channel is mapped now or the answer was not "no update for the runtime".
   */
  static String unmappedNote(AppState app, DeviceRecord d) {
    if (app == null || d.channel() == null || !CheckIn.REASON_NO_UPDATE_FOR_RUNTIME.equals(d.served().reason())
        || app.channels().containsKey(d.channel())) {
      return null;
    }
    return "channel \"" + d.channel() + "\" is not mapped (never, or its mapping was deleted), so it serves the branch of"
        + " its own name";
  }

  /**
   * What the control plane's state adds to a device's story when its answer came from a per-update
   * rollout: the edge records the device's bucket, and the state knows which rollout that was and its
   * share, so the device can be said to be inside the rollout (it got the new group) or outside it (it got
   * the rollout's control group). Null when the answer involved no rollout the state knows.
   */
  static String rolloutNote(AppState app, DeviceRecord d) {
    DeviceRecord.Served s = d.served();
    if (app == null || s.rolloutBucket() == null || s.branch() == null) {
      return null;
    }
    List<GroupState> groups = app.groupsNewestFirst(s.branch(), d.runtimeVersion());
    String groupId = s.groupId();
    if (groupId == null && d.currentUpdateId() != null) {
      // not served anything: the group it runs, when it is one of this branch's
      for (GroupState g : groups) {
        PlatformUpdate p = g.platform(d.platform());
        if (p != null && p.updateId().equals(d.currentUpdateId())) {
          groupId = g.groupId();
          break;
        }
      }
    }
    if (groupId == null) {
      return null;
    }
    for (GroupState g : groups) {
      if (g.rollout() == null) {
        continue;
      }
      boolean inside = g.groupId().equals(groupId);
      if (!inside && !groupId.equals(g.rollout().controlGroupId())) {
        continue;
      }
      int pct = g.rollout().percentage();
      String share =
          (g.rollout().active() ? "now at " : "which was at ") + pct + " %"
              + ", which takes " + Bucketing.range(pct)
              + (g.rollout().active() ? "" : ", since " + g.rollout().status());
      return inside
          ? "bucket " + s.rolloutBucket() + " is inside the rollout of group " + g.groupId() + " (" + share + ")"
          : "bucket " + s.rolloutBucket() + " is outside the rollout of group " + g.groupId() + " (" + share
              + "), so the device gets the rollout's control group " + groupId;
    }
    return null;
  }

  /** The app in path parameter {@code app}, or null after answering 404. */
  private AppState app(RoutingContext rc) {
    String id = rc.pathParam("app");
    AppState a = ctx.state().app(id);
    if (a == null) {
      ctx.fail(rc, 404, "app-not-found", "no app " + id + "; create it with `updraft apps create " + id + "`");
    }
    return a;
  }

  /** The path's update group of {@code app}, or null after answering 404 {@code update-not-found}. */
  private GroupState group(RoutingContext rc, AppState app) {
    String groupId = rc.pathParam("groupId");
    GroupState g = app.group(groupId);
    if (g == null) {
      ctx.fail(rc, 404, "update-not-found",
          "app " + app.appId() + " has no update group " + groupId + " (list them with `updraft updates --app " + app.appId() + "`)");
    }
    return g;
  }

  private <T> void reply(RoutingContext rc, Future<T> f, Function<T, JsonNode> view) {
    reply(rc, f, view, null);
  }

  /** Sends {@code view(result)}, or runs {@code absent} when the view is null; failures become 503 or 500. */
  private <T> void reply(RoutingContext rc, Future<T> f, Function<T, JsonNode> view, Runnable absent) {
    db.bounded(f).onComplete(
        ar -> {
          if (ar.succeeded()) {
            db.available();
            JsonNode body;
            try {
              body = view.apply(ar.result());
            } catch (RuntimeException e) {
              internal(rc, e);
              return;
            }
            if (body == null) {
              absent.run();
            } else {
              send(rc, body);
            }
          } else if (TelemetryDb.isOutage(ar.cause())) {
            db.unavailable(ar.cause());
            unavailable.increment();
            rc.response().putHeader("retry-after", "10");
            ctx.fail(rc, 503, "insights-unavailable",
                "insights are unavailable: the telemetry database (PostgreSQL at " + db.where() + ", --postgres-url) cannot be used: "
                    + TelemetryDb.describe(ar.cause())
                    + ". Publishing and the rest of the API work without it; retry once PostgreSQL is back");
          } else {
            internal(rc, ar.cause());
          }
        });
  }

  private void internal(RoutingContext rc, Throwable t) {
    String id = UUID.randomUUID().toString().substring(0, 8);
    LOG.error("internal error id={} on {} {}", id, rc.request().method(), rc.request().path(), t);
    ctx.fail(rc, 500, "internal", "internal error (id=" + id + "); the server log has the details");
  }

  private static void send(RoutingContext rc, JsonNode body) {
    String text;
    try {
      text = InsightsJson.MAPPER.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write response JSON", e);
    }
    rc.response().putHeader("content-type", "application/json").putHeader("cache-control", "no-store").end(text);
  }
}
