package dev.updraft.controlplane.storage;

import dev.updraft.common.AcceptEncoding;
import dev.updraft.common.ContentTypes;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Serves local-storage assets at {@code GET /assets/<app>/<sha256><ext>}: the {@code content-type} from the
 * extension (never from {@code Accept}: Android asks for {@code application/javascript} even for
 * images), and for a compressible type the encoding {@code Accept-Encoding} prefers among the zstd, br and
 * gzip copies made after the asset was published ({@link AcceptEncoding}); before those copies exist, a
 * client that takes gzip gets a gzip copy made on first request and kept. {@code cache-control: public,
 * max-age=31536000, immutable} only for final bytes: the decoded bytes at a URL never change, but an answer
 * in an encoding the client ranks below one still to come (the copies are made off the request path,
 * seconds after a publish) gets {@code public, max-age=30}. Addresses
 * are matched against a strict pattern, so no path can leave the storage directory. Thread-safe.
 */
public final class LocalAssetRoute implements Handler<RoutingContext> {
  private static final Pattern FILE = Pattern.compile("([0-9a-f]{64})(\\.[A-Za-z0-9]{1,16})?");
  static final String IMMUTABLE = "public, max-age=31536000, immutable";
  /** Bytes a later copy improves for this client (its preferred encoding is not stored yet): kept briefly. */
  static final String INTERIM = "public, max-age=30";
  private static final List<String> STORED = List.of(AcceptEncoding.ZSTD, AcceptEncoding.BR, AcceptEncoding.GZIP);
  private static final List<String> ALL = List.of(AcceptEncoding.ZSTD, AcceptEncoding.BR, AcceptEncoding.GZIP, AcceptEncoding.IDENTITY);

  private final Vertx vertx;
  private final LocalAssetStorage storage;

  private LocalAssetRoute(Vertx vertx, LocalAssetStorage storage) {
    this.vertx = vertx;
    this.storage = storage;
  }

  /** Mounts {@code GET} and {@code HEAD /assets/:app/:file} on {@code router}. */
  public static void mount(Vertx vertx, Router router, LocalAssetStorage storage) {
    LocalAssetRoute h = new LocalAssetRoute(vertx, storage);
    router.get("/assets/:app/:file").handler(h);
    router.head("/assets/:app/:file").handler(h);
  }

  @Override
  public void handle(RoutingContext rc) {
    String app = rc.pathParam("app");
    String file = rc.pathParam("file");
    Matcher m = file == null ? null : FILE.matcher(file);
    Path data = m != null && m.matches() && app != null ? storage.existing(app, m.group(1)) : null;
    HttpServerResponse res = rc.response();
    if (data == null) {
      res.setStatusCode(404)
          .putHeader("content-type", "application/json")
          .end("{\"error\":{\"code\":\"not-found\",\"message\":\"no asset at this address\"}}");
      return;
    }
    String ext = m.group(2);
    String contentType = ext == null ? ContentTypes.OCTET_STREAM : ContentTypes.of(ext);
    res.putHeader("content-type", contentType)
        .putHeader("vary", "accept-encoding")
        .putHeader("x-content-type-options", "nosniff");
    boolean head = rc.request().method() == HttpMethod.HEAD;
    if (!ContentTypes.compressible(contentType)) {
      res.putHeader("cache-control", IMMUTABLE);
      send(res, data, head);
      return;
    }
    String accept = rc.request().getHeader("accept-encoding");
    // final bytes (immutable) only in the encoding this client gets once every copy is stored
    String best = AcceptEncoding.choose(accept, ALL);
    List<String> held = new ArrayList<>(4);
    for (String enc : STORED) {
      if (storage.variant(data, enc) != null) {
        held.add(enc);
      }
    }
    held.add(AcceptEncoding.IDENTITY);
    String enc = AcceptEncoding.choose(accept, held);
    if (enc != null && !enc.equals(AcceptEncoding.IDENTITY)) {
      // stored at publish time (PatchWorker): nothing is compressed for this request
      res.putHeader("content-encoding", enc);
      res.putHeader("cache-control", enc.equals(best) ? IMMUTABLE : INTERIM);
      send(res, storage.variant(data, enc), head);
      return;
    }
    if (!acceptsGzip(accept)) {
      res.putHeader("cache-control", AcceptEncoding.IDENTITY.equals(best) ? IMMUTABLE : INTERIM);
      send(res, data, head);
      return;
    }
    // an asset stored before encodings were made at publish time: a gzip copy made once, then kept
    vertx
        .executeBlocking(() -> storage.gzipped(data))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                res.putHeader("cache-control", INTERIM);
                send(res, data, head); // identity is always acceptable
              } else {
                res.putHeader("content-encoding", "gzip");
                res.putHeader("cache-control", AcceptEncoding.GZIP.equals(best) ? IMMUTABLE : INTERIM);
                send(res, ar.result(), head);
              }
            });
  }

  private void send(HttpServerResponse res, Path p, boolean head) {
    if (head) {
      vertx
          .fileSystem()
          .props(p.toString())
          .onComplete(
              ar -> {
                if (ar.succeeded()) {
                  res.putHeader("content-length", Long.toString(ar.result().size()));
                }
                res.end();
              });
    } else {
      res.sendFile(p.toString());
    }
  }

  /** Whether an {@code Accept-Encoding} value admits gzip (by name or {@code *}, with q above 0). */
  static boolean acceptsGzip(String header) {
    if (header == null) {
      return false;
    }
    for (String part : header.split(",")) {
      String[] bits = part.trim().split(";");
      String name = bits[0].trim().toLowerCase(Locale.ROOT);
      if (!name.equals("gzip") && !name.equals("*") && !name.equals("x-gzip")) {
        continue;
      }
      double q = 1;
      for (int i = 1; i < bits.length; i++) {
        String b = bits[i].trim();
        if (b.startsWith("q=")) {
          try {
            q = Double.parseDouble(b.substring(2));
          } catch (NumberFormatException e) {
            q = 0;
          }
        }
      }
      if (q > 0) {
        return true;
      }
    }
    return false;
  }
}
