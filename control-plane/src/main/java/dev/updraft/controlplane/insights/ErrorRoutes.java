package dev.updraft.controlplane.insights;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.core.Role;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v1/apps/{app}/updates/{groupId}/errors} (role read): the update group's error groups
 * ({@link ErrorGroups}). PostgreSQL unusable is 503 {@code insights-unavailable} as for the other insights routes.
 * Thread-safe.
 */
final class ErrorRoutes {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorRoutes.class);
  private final ExtensionContext ctx;
  private final TelemetryDb db;

  ErrorRoutes(ExtensionContext ctx, TelemetryDb db) {
    this.ctx = ctx;
    this.db = db;
  }

  void mount() {
    ctx.router().get("/v1/apps/:app/updates/:groupId/errors").handler(ctx.authorize(Role.READ)).handler(this::errors);
  }

  private void errors(RoutingContext rc) {
    String id = rc.pathParam("app");
    AppState app = ctx.state().app(id);
    if (app == null) {
      ctx.fail(rc, 404, "app-not-found", "no app " + id + "; create it with `updraft apps create " + id + "`");
      return;
    }
    String groupId = rc.pathParam("groupId");
    GroupState g = app.group(groupId);
    if (g == null) {
      ctx.fail(rc, 404, "update-not-found",
          "app " + app.appId() + " has no update group " + groupId + " (list them with `updraft updates --app " + app.appId() + "`)");
      return;
    }
    db.bounded(db.ready().compose(v -> ErrorGroups.read(db.pool(), app, g))).onComplete(ar -> {
      if (ar.succeeded()) {
        db.available();
        ErrorGroups.Report report = ar.result();
        // maps are read and parsed off the event loop
        ctx.vertx().executeBlocking(() -> TopFrames.resolve(ctx.sourceMaps(), app.appId(), g, report.groups()), false)
            .onComplete(fr -> {
              if (fr.failed()) {
                rc.fail(fr.cause());
              } else {
                send(rc, report, fr.result());
              }
            });
      } else if (TelemetryDb.isOutage(ar.cause())) {
        db.unavailable(ar.cause());
        rc.response().putHeader("retry-after", "10");
        ctx.fail(rc, 503, "insights-unavailable", "error groups are unavailable: the telemetry database (PostgreSQL at " + db.where()
            + ", --postgres-url) cannot be used: " + TelemetryDb.describe(ar.cause()) + "; retry once PostgreSQL is back");
      } else {
        String ref = UUID.randomUUID().toString().substring(0, 8);
        LOG.error("internal error id={} on {}", ref, rc.request().path(), ar.cause());
        ctx.fail(rc, 500, "internal", "internal error (id=" + ref + "); the server log has the details");
      }
    });
  }

  private static void send(RoutingContext rc, ErrorGroups.Report r, java.util.Map<String, TopFrames.Frame> frames) {
    ObjectNode o = InsightsJson.MAPPER.createObjectNode();
    o.put("groupId", r.groupId());
    ArrayNode ids = o.putArray("updateIds");
    r.updateIds().forEach(ids::add);
    if (r.previousGroupId() == null) {
      o.putNull("previousGroupId");
    } else {
      o.put("previousGroupId", r.previousGroupId());
    }
    o.put("devices", r.devices());
    ArrayNode groups = o.putArray("groups");
    for (ErrorGroups.Group g : r.groups()) {
      ObjectNode n = groups.addObject();
      n.put("key", g.key());
      n.put("errorType", g.errorType());
      n.put("topFrame", g.topFrame());
      n.put("sampleMessage", g.sampleMessage());
      n.put("firstSeen", g.firstSeen().toString());
      n.put("lastSeen", g.lastSeen().toString());
      n.put("occurrences", g.occurrences());
      n.put("devices", g.devices());
      n.put("fatal", g.fatal());
      n.put("newInUpdate", g.newInUpdate());
      frame(n, frames.get(g.key()));
    }
    String text;
    try {
      text = InsightsJson.MAPPER.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write response JSON", e);
    }
    rc.response().putHeader("content-type", "application/json").putHeader("cache-control", "no-store").end(text);
  }

  /** The group's top frame: as reported ({@code minifiedFrame}) and through the update's source map. */
  private static void frame(ObjectNode n, TopFrames.Frame f) {
    if (f.minified() == null) {
      n.putNull("minifiedFrame");
    } else {
      n.put("minifiedFrame", f.minified());
    }
    if (f.platform() == null) {
      n.putNull("platform");
    } else {
      n.put("platform", f.platform());
    }
    n.put("sourceMap", f.status());
    if (f.original() == null) {
      n.putNull("originalFrame");
      return;
    }
    ObjectNode o = n.putObject("originalFrame");
    o.put("source", f.original().source());
    o.put("line", f.original().line());
    o.put("column", f.original().column() + 1);
    if (f.original().name() == null) {
      o.putNull("name");
    } else {
      o.put("name", f.original().name());
    }
  }
}
