package dev.updraft.controlplane.console;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Serves the web console's static files at {@code GET /console/} ({@code index.html}) and
 * {@code GET /console/<file>}, and redirects {@code GET /} and {@code GET /console} to {@code /console/}.
 * No token is needed for the files: they hold no data, and every API call the pages make carries the
 * user's bearer token.
 *
 * <p>The files are read once from the classpath ({@code console/} in the control-plane jar) by
 * {@link #load()} and answered from memory with pre-built headers: the content type by extension, a
 * strong {@code etag} (SHA-256 of the bytes; {@code If-None-Match} gets 304), {@code cache-control:
 * no-cache} so a browser revalidates after an upgrade, and a {@code content-security-policy} that lets the
 * pages load and call nothing but this server. Files are flat (no subfolders) and listed in {@link #FILES}:
 * a file missing from the jar fails {@link #load()}, and a unit test checks the list against the folder.
 *
 * <p>Thread-safety: immutable after {@link #load()}; handlers run on any event loop.
 */
public final class ConsoleRoutes {
  /** Where the files live on the classpath. */
  static final String RESOURCE_DIR = "/console/";

  /** Every file of the console, as named in the URL after {@code /console/}. */
  static final List<String> FILES =
      List.of(
          "index.html",
          "console.css",
          "favicon.svg",
          "app.js",
          "api.js",
          "dom.js",
          "charts.js",
          "groups.js",
          "lifecycle.js",
          "errors.js",
          "funnel.js",
          "page-signin.js",
          "page-apps.js",
          "page-channels.js",
          "page-branches.js",
          "page-update.js",
          "page-devices.js",
          "page-audit.js",
          "page-builds.js",
          "page-access.js");

  /**
   * Only this origin: scripts and styles from files (no inline code), API calls to this server, images
   * from files and inline SVG, never framed.
   */
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
          + "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml");

  private static final String NOT_FOUND =
      "{\"error\":{\"code\":\"not-found\",\"message\":\"the console has no file by this name; open /console/\"}}";

  private final Map<String, StaticFile> files;

  private ConsoleRoutes(Map<String, StaticFile> files) {
    this.files = files;
  }

  /** One file with its headers, built once. */
  private record StaticFile(Buffer body, String contentType, String etag) {}

  /**
   * Reads every file of {@link #FILES} from the classpath. Blocking (call it off the event loop).
   *
   * @throws IllegalStateException when a file is missing or has an extension without a known type: the
   *     jar was built wrong
   */
  public static ConsoleRoutes load() {
    Map<String, StaticFile> out = new LinkedHashMap<>();
    for (String name : FILES) {
      String type = TYPES.get(name.substring(name.lastIndexOf('.') + 1));
      if (type == null) {
        throw new IllegalStateException("console file=" + name + " has no known content type");
      }
      byte[] bytes;
      try (InputStream in = ConsoleRoutes.class.getResourceAsStream(RESOURCE_DIR + name)) {
        if (in == null) {
          throw new IllegalStateException("missing classpath resource " + RESOURCE_DIR + name + ": the control-plane jar lacks the console");
        }
        bytes = in.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException("cannot read classpath resource " + RESOURCE_DIR + name, e);
      }
      out.put(name, new StaticFile(Buffer.buffer(bytes), type, "\"" + sha256(bytes).substring(0, 32) + "\""));
    }
    return new ConsoleRoutes(Map.copyOf(out));
  }

  /**
   * Adds {@code GET /} and {@code GET /console} (redirects: the page's relative URLs need the slash),
   * {@code GET /console/} and {@code GET /console/:file} to {@code router}.
   */
  public void mount(Router router) {
    router.get("/").handler(ConsoleRoutes::redirect);
    // before "/console": Vert.x lets a path without its trailing slash match "/console/" too
    router.get("/console/").handler(rc -> serve(rc, "index.html"));
    router.get("/console").handler(ConsoleRoutes::redirect);
    router.get("/console/:file").handler(rc -> serve(rc, rc.pathParam("file")));
  }

  private static void redirect(RoutingContext rc) {
    rc.response().setStatusCode(302).putHeader("location", "/console/").putHeader("cache-control", "no-cache").end();
  }

  private void serve(RoutingContext rc, String name) {
    StaticFile f = name == null ? null : files.get(name);
    HttpServerResponse res = rc.response();
    res.putHeader("x-content-type-options", "nosniff")
        .putHeader("content-security-policy", CSP)
        .putHeader("referrer-policy", "no-referrer")
        .putHeader("cache-control", "no-cache");
    if (f == null) {
      res.setStatusCode(404).putHeader("content-type", "application/json").end(NOT_FOUND);
      return;
    }
    res.putHeader("etag", f.etag());
    if (f.etag().equals(rc.request().getHeader("if-none-match"))) {
      res.setStatusCode(304).end();
      return;
    }
    res.putHeader("content-type", f.contentType()).end(f.body());
  }

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM lacks SHA-256", e);
    }
  }

  /** For tests: the body of a file as served, or null. */
  String text(String name) {
    StaticFile f = files.get(name);
    return f == null ? null : f.body().toString(StandardCharsets.UTF_8);
  }
}
