package dev.updraft.edge.otlp;

import dev.updraft.edge.image.LiveImage;
import dev.updraft.events.ErrorReport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The OTLP/HTTP ingestion route for the errors apps report: {@code POST /v1/logs} and {@code POST /v1/traces}
 * (also under {@code /apps/{appId}/}), JSON ({@code application/json}) or protobuf ({@code application/x-protobuf}),
 * uncompressed. Public like the manifest route, and bounded before any byte of the body is read: a method other than
 * POST is 405, another content type or a content encoding 415, an unknown app 404, a declared length over
 * {@code maxBodyBytes} 413, more than {@code perAddressPerMinute} requests from one address bucket in a minute or
 * more than {@link #MAX_IN_FLIGHT} requests being read or decoded at once 429. A body that grows past the cap while
 * read is 413 and the connection closed. Decoding runs on a worker thread, never on the event loop the manifest
 * route shares. A body that is not the route's OTLP message is 400 {@code invalid-otlp} naming the problem.
 *
 * <p>Each exception found (a log record or span event with {@code exception.*} attributes; at most
 * {@code maxErrorsPerRequest}, the rest reported back as rejected in {@code partialSuccess}) becomes one
 * {@link ErrorReport} with the resource's attributes ({@link ResourceKeys}). Thread-safe.
 */
public final class OtlpRoute {
  public static final String LOGS = "logs";
  public static final String TRACES = "traces";
  /** Requests being read or decoded at once, per edge. */
  static final int MAX_IN_FLIGHT = 64;
  static final int MAX_ID = 200;
  /** How long a refused body is discarded before the connection is closed. */
  static final long DISCARD_MILLIS = 5_000;

  private final LiveImage live;
  private final Consumer<ErrorReport> sink;
  private final String edgeId;
  private final int maxBodyBytes;
  private final int maxErrorsPerRequest;
  private final AddressWindow window;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final MeterRegistry registry;

  /**
   * @param sink where reports go; called on a worker thread
   * @param maxBodyBytes the largest body taken
   * @param maxErrorsPerRequest exceptions kept per request
   * @param perAddressPerMinute requests per address bucket and minute
   */
  public OtlpRoute(LiveImage live, Consumer<ErrorReport> sink, MeterRegistry registry, String edgeId, int maxBodyBytes, int maxErrorsPerRequest,
      int perAddressPerMinute) {
    this.live = live;
    this.sink = sink;
    this.edgeId = edgeId;
    this.maxBodyBytes = maxBodyBytes;
    this.maxErrorsPerRequest = maxErrorsPerRequest;
    this.window = new AddressWindow(perAddressPerMinute);
    this.registry = registry;
  }

  private void count(String outcome) {
    Counter.builder("updraft.edge.otlp.requests").description("OTLP/HTTP requests, by outcome").tag("outcome", outcome).register(registry)
        .increment();
  }

  /**
   * Answers one request.
   *
   * @param appId the app named in the path, or null ({@code expo-app-id} header, else each resource's {@code expo.app.id})
   * @param signal {@link #LOGS} or {@link #TRACES}
   * @param addressBucket the request's address bucket, null when unknown
   */
  public void handle(HttpServerRequest req, String appId, String signal, String addressBucket) {
    if (req.method() != HttpMethod.POST) {
      refuse(req, 405, "method-not-allowed", "the OTLP route takes POST: got " + req.method().name());
      return;
    }
    String type = mediaType(req.getHeader("content-type"));
    boolean json = "application/json".equals(type);
    if (!json && !"application/x-protobuf".equals(type)) {
      refuse(req, 415, "unsupported-content-type", "content-type must be application/json or application/x-protobuf: got "
          + (type == null ? "none" : "'" + OtlpJson.shorten(type) + "'"));
      return;
    }
    String encoding = req.getHeader("content-encoding");
    if (encoding != null && !encoding.isBlank() && !"identity".equalsIgnoreCase(encoding.trim())) {
      refuse(req, 415, "unsupported-content-encoding", "send the body uncompressed: got content-encoding '" + OtlpJson.shorten(encoding) + "'");
      return;
    }
    String app = appId != null ? appId : req.getHeader("expo-app-id");
    if (app != null && (app.length() > MAX_ID || live.image().app(app) == null)) {
      refuse(req, 404, "app-not-found", "no app '" + OtlpJson.shorten(app) + "' on this server");
      return;
    }
    String declared = req.getHeader("content-length");
    long length = -1;
    if (declared != null) {
      try {
        length = Long.parseLong(declared.trim());
      } catch (NumberFormatException e) {
        refuse(req, 400, "invalid-content-length", "content-length is not a number: '" + OtlpJson.shorten(declared) + "'");
        return;
      }
    }
    if (length > maxBodyBytes) {
      tooLarge(req, "the body is " + length + " bytes; this edge takes at most " + maxBodyBytes);
      return;
    }
    if (!window.admit(addressBucket, System.currentTimeMillis())) {
      req.response().putHeader("retry-after", "60");
      refuse(req, 429, "too-many-requests", "too many OTLP requests from this network this minute; retry in a minute");
      return;
    }
    if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
      inFlight.decrementAndGet();
      req.response().putHeader("retry-after", "1");
      refuse(req, 429, "too-many-requests", "this edge is reading " + MAX_IN_FLIGHT + " OTLP requests already; retry in a second");
      return;
    }
    read(req, app, signal, json, addressBucket);
  }

  private void read(HttpServerRequest req, String app, String signal, boolean json, String addressBucket) {
    Buffer body = Buffer.buffer();
    boolean[] over = {false};
    req.handler(chunk -> {
      if (over[0]) {
        return;
      }
      if (body.length() + chunk.length() > maxBodyBytes) {
        over[0] = true;
        inFlight.decrementAndGet();
        tooLarge(req, "the body is over " + maxBodyBytes + " bytes, the most this edge takes");
        return;
      }
      body.appendBuffer(chunk);
    });
    req.exceptionHandler(e -> {
      if (!over[0]) {
        over[0] = true;
        inFlight.decrementAndGet();
      }
    });
    req.endHandler(v -> {
      if (over[0]) {
        return;
      }
      over[0] = true;
      Vertx vertx = Vertx.currentContext().owner();
      vertx.executeBlocking(() -> decodeAndSend(body.getBytes(), app, signal, json, addressBucket), false).onComplete(ar -> {
        inFlight.decrementAndGet();
        if (ar.failed()) {
          Throwable t = ar.cause();
          if (t instanceof OtlpSyntaxException) {
            refuse(req, 400, "invalid-otlp", t.getMessage());
          } else if (t instanceof MissingApp) {
            refuse(req, 400, "missing-app-id", t.getMessage());
          } else {
            refuse(req, 500, "internal-error", "the OTLP request could not be processed: " + t);
          }
          return;
        }
        count("accepted");
        Decoded d = ar.result();
        if (json) {
          JsonObject out = new JsonObject();
          if (d.leftOver > 0) {
            out.put("partialSuccess", new JsonObject().put(LOGS.equals(signal) ? "rejectedLogRecords" : "rejectedSpans", d.leftOver)
                .put("errorMessage", d.leftOver + " exceptions over this edge's " + maxErrorsPerRequest + " per request were dropped"));
          }
          req.response().putHeader("content-type", "application/json").end(out.encode());
        } else {
          req.response().putHeader("content-type", "application/x-protobuf").end();
        }
      });
    });
  }

  /** Thrown when neither the path, the header nor a resource names the app. */
  static final class MissingApp extends Exception {
    private static final long serialVersionUID = 1L;

    MissingApp(String message) {
      super(message, null, false, false);
    }
  }

  private Decoded decodeAndSend(byte[] body, String app, String signal, boolean json, String addressBucket) throws Exception {
    Decoded d = LOGS.equals(signal)
        ? (json ? OtlpJson.logs(body, maxErrorsPerRequest) : OtlpProto.logs(body, maxErrorsPerRequest))
        : (json ? OtlpJson.traces(body, maxErrorsPerRequest) : OtlpProto.traces(body, maxErrorsPerRequest));
    List<ErrorReport> reports = new java.util.ArrayList<>(d.found.size());
    long now = System.currentTimeMillis();
    for (Found f : d.found) {
      String a = app != null ? app : f.resource().get(ResourceKeys.APP_ID);
      if (a == null) {
        throw new MissingApp("name the app: POST to /apps/{appId}/v1/" + signal + ", send expo-app-id, or set the resource attribute "
            + ResourceKeys.APP_ID);
      }
      if (app == null && (a.length() > MAX_ID || live.image().app(a) == null)) {
        throw new MissingApp("resource attribute " + ResourceKeys.APP_ID + " names no app on this server: '" + OtlpJson.shorten(a) + "'");
      }
      reports.add(report(f, a, addressBucket, now));
    }
    for (ErrorReport r : reports) {
      sink.accept(r);
    }
    return d;
  }

  private ErrorReport report(Found f, String app, String addressBucket, long now) {
    java.util.Map<String, String> res = f.resource();
    ThreadLocalRandom rnd = ThreadLocalRandom.current();
    String id = new java.util.UUID(rnd.nextLong() & ~0xf000L | 0x4000L, rnd.nextLong() & 0x3fffffffffffffffL | 0x8000000000000000L).toString();
    long at = f.timeNanos() > 0 ? f.timeNanos() / 1_000_000 : now;
    if (at > now + 86_400_000L || at < now - 30L * 86_400_000L) {
      at = now; // a clock far off: the edge's time
    }
    String type = cut(f.type(), ErrorReport.MAX_TYPE);
    return new ErrorReport(ErrorReport.CURRENT_VERSION, id, app, cut(res.get(ResourceKeys.UPDATE_ID), MAX_ID), cut(res.get(ResourceKeys.CHANNEL), MAX_ID),
        cut(res.get(ResourceKeys.RUNTIME_VERSION), MAX_ID), lower(res.get(ResourceKeys.OS_NAME)), lower(res.get(ResourceKeys.CLIENT_ID)),
        addressBucket, edgeId, f.source(), type == null || type.isBlank() ? "Error" : type, cut(f.message(), ErrorReport.MAX_MESSAGE),
        cut(f.stacktrace(), ErrorReport.MAX_STACK), f.fatal(), at);
  }

  private static String lower(String s) {
    return s == null ? null : cut(s.toLowerCase(Locale.ROOT), MAX_ID);
  }

  private static String cut(String s, int max) {
    return s == null || s.length() <= max ? s : s.substring(0, max);
  }

  private static String mediaType(String header) {
    if (header == null) {
      return null;
    }
    int semi = header.indexOf(';');
    return (semi < 0 ? header : header.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
  }

  /**
   * 413 with {@code connection: close}; what the client still sends is discarded (never buffered) until its request
   * ends, then the connection is closed, at the latest {@link #DISCARD_MILLIS} after the answer (a client may only
   * read the answer once it has sent its body; one that sends for longer is cut off).
   */
  private void tooLarge(HttpServerRequest req, String message) {
    if (!req.response().ended()) {
      req.response().putHeader("connection", "close");
    }
    refuse(req, 413, "body-too-large", message);
    req.handler(chunk -> {});
    req.endHandler(v -> req.connection().close());
    vertxOf().setTimer(DISCARD_MILLIS, t -> req.connection().close());
  }

  private static Vertx vertxOf() {
    return Vertx.currentContext().owner();
  }

  private void refuse(HttpServerRequest req, int status, String code, String message) {
    count(code);
    if (req.response().ended()) {
      return;
    }
    req.response().setStatusCode(status).putHeader("content-type", "application/json")
        .end(new JsonObject().put("error", new JsonObject().put("code", code).put("message", message)).encode());
  }
}
