package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/**
 * What every routes class shares: the dependencies, the authentication, and the small steps of a handler
 * (find the app of the path, name the actor, answer a command's future). Immutable; event loop.
 */
final class ApiContext {
  final Vertx vertx;
  final PublisherApi.Deps deps;
  final Auth auth;
  /** The groups held merged with the older ones of the history projection. */
  final GroupReads groups;

  ApiContext(Vertx vertx, PublisherApi.Deps deps, Auth auth) {
    this.vertx = vertx;
    this.deps = deps;
    this.auth = auth;
    this.groups = new GroupReads(deps.history());
  }

  ControlState state() {
    return deps.processor().state();
  }

  /** After authorization: the actor to record ({@code admin} or the token id). */
  String actor(RoutingContext rc) {
    return auth.authenticate(rc).actor();
  }

  /** The app in path parameter {@code app}, or 404 {@code app-not-found}. */
  AppState app(RoutingContext rc) {
    String id = rc.pathParam("app");
    AppState a = state().app(id);
    if (a == null) {
      throw CommandException.notFound("app-not-found", "no app " + id + "; create it with `updraft apps create " + id + "`");
    }
    return a;
  }

  /** A handler that passes on only when the app in the path exists. */
  void requireApp(RoutingContext rc) {
    app(rc);
    rc.next();
  }

  /** Answers {@code status} with {@code view} of the command's result, or fails the request with its refusal. */
  static <T> void reply(RoutingContext rc, Future<T> f, int status, Function<T, JsonNode> view) {
    f.onComplete(
        ar -> {
          if (ar.failed()) {
            rc.fail(ar.cause());
          } else {
            Json.send(rc, status, view.apply(ar.result()));
          }
        });
  }

  /** Query parameter {@code name} as a whole number from {@code min} to {@code max} ({@code def} when absent), or 400. */
  static int intParam(RoutingContext rc, String name, int def, int min, int max) {
    String v = rc.queryParams().get(name);
    if (v == null || v.isEmpty()) {
      return def;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        throw CommandException.badRequest("invalid-parameter", name + " must be between " + min + " and " + max + ": got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw CommandException.badRequest("invalid-parameter", name + " must be a whole number: got '" + v + "'");
    }
  }

  /** Query parameter {@code name} as a whole number, null when absent, or 400. */
  static Long longParam(RoutingContext rc, String name) {
    String v = rc.queryParams().get(name);
    if (v == null || v.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw CommandException.badRequest("invalid-parameter", name + " must be a whole number: got '" + v + "'");
    }
  }
}
