package dev.updraft.edge;

import dev.updraft.edge.assets.AssetRoute;
import dev.updraft.edge.assets.PatchCache;
import dev.updraft.edge.checkin.CheckInEmitter;
import dev.updraft.edge.image.LiveImage;
import dev.updraft.edge.log.EventLogReader;
import dev.updraft.edge.log.StoredImages;
import dev.updraft.edge.replay.RequestRecorder;
import dev.updraft.events.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edge node: reads {@code updraft.events} into an in-memory image and answers the manifest route
 * from it, emitting one check-in per device request to {@code updraft.telemetry}.
 *
 * <p>{@link #start} completes once the HTTP server listens; the node reports {@link #ready()} (and
 * {@code /readyz} 200) only after the image has caught up with the log end seen at start, and answers
 * device requests with 503 until then. The HTTP servers run on the given {@link Vertx}, which uses the
 * epoll transport when it was created with {@code setPreferNativeTransport(true)} on Linux (the
 * dependency is on the classpath). Thread-safe.
 */
public final class EdgeNode {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeNode.class);
  private static final AtomicInteger RANDOM_PORT_KEYS = new AtomicInteger();

  private final Vertx vertx;
  private final Parts parts;
  private final List<String> deployments;
  private final int port;

  /** What a node owns besides its HTTP servers; closed in reverse order. */
  /** The OTLP route's bounds (docs/protocol.md, "Errors from the app"). */
  static final int OTLP_MAX_BODY_BYTES = 512 * 1024;
  static final int OTLP_MAX_ERRORS_PER_REQUEST = 100;
  static final int OTLP_REQUESTS_PER_ADDRESS_MINUTE = 600;

  private static final class Parts {
    final PrometheusMeterRegistry registry;
    final LiveImage live;
    final JvmGcMetrics gc;
    EventLogReader reader;
    CheckInEmitter emitter;
    RequestRecorder recorder;
    PatchCache patches;
    AssetRoute assets;
    /** Null when check-ins are off: then no OTLP route either. */
    dev.updraft.edge.otlp.ErrorSink errors;
    dev.updraft.edge.otlp.OtlpRoute otlp;
    Warmup warmup;
    Drain drain;
    /** Nullable: the {@code --metrics-port} listener. */
    io.vertx.core.http.HttpServer metricsServer;

    Parts(PrometheusMeterRegistry registry, LiveImage live, JvmGcMetrics gc) {
      this.registry = registry;
      this.live = live;
      this.gc = gc;
    }

    void close() {
      if (warmup != null) {
        warmup.stop();
      }
      if (assets != null) {
        assets.close();
      }
      if (patches != null) {
        patches.close();
      }
      if (recorder != null) {
        recorder.close();
      }
      if (reader != null) {
        reader.close();
      }
      if (emitter != null) {
        emitter.close(Duration.ofSeconds(10));
      }
      if (errors != null) {
        errors.close();
      }
      gc.close();
      registry.close();
    }
  }

  private EdgeNode(Vertx vertx, Parts parts, List<String> deployments, int port) {
    this.vertx = vertx;
    this.parts = parts;
    this.deployments = deployments;
    this.port = port;
  }

  /** The JVM's meters and the image's gauges on {@code registry}; the GC meters, which hold resources, returned to close. */
  private static JvmGcMetrics bindMeters(PrometheusMeterRegistry registry, LiveImage live) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    Gauge.builder("updraft.edge.image.apps", live, l -> l.image().appCount()).description("Apps in the image").register(registry);
    Gauge.builder("updraft.edge.image.groups", live, l -> l.image().groupCount()).description("Update groups in the image").register(registry);
    Gauge.builder("updraft.edge.image.bytes", live, l -> l.image().bytes())
        .description("Bytes of bodies and prepared responses held by the image")
        .register(registry);
    Gauge.builder("updraft.edge.ready", live, l -> l.ready() ? 1 : 0).description("1 once the image caught up with the log").register(registry);
    Gauge.builder("updraft.edge.image.stored.serving", live, l -> l.servingStored() ? 1 : 0)
        .description("1 while the edge serves a stored image (--data-dir or --image-source) without having caught up with Kafka")
        .register(registry);
    return gc;
  }

  /**
   * Starts a node: the log reader, the check-in emitter, the request recorder (when configured) and one
   * HTTP server per event loop. Completes when the servers listen; fails (having released everything)
   * when a server cannot bind.
   */
  public static Future<EdgeNode> start(Vertx vertx, EdgeConfig config) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    LiveImage live = new LiveImage(config.maxStale());
    live.phases().jvmToNow();
    JvmGcMetrics gc = bindMeters(registry, live);
    Counter headerTimeouts = Counter.builder("updraft.edge.header.timeouts")
        .description("Connections closed because a request head took longer than --header-timeout")
        .register(registry);
    Parts parts = new Parts(registry, live, gc);

    // Kafka clients and the file are opened off the caller's thread (it may be an event loop)
    Future<Parts> opened = vertx.executeBlocking(() -> {
      parts.reader = new EventLogReader(config.kafkaBootstrap(), config.kafka(), Topics.events(config.topicPrefix()),
          Topics.snapshots(config.topicPrefix()), "updraft-edge-" + config.edgeId(), live, registry,
          config.dataDir() == null && config.imageSource() == null ? null
              : new StoredImages(config.dataDir(), config.imageInterval(), config.storedImageAfter(), config.imageSource()));
      if (config.checkins()) {
        parts.emitter = CheckInEmitter.kafka(config.kafkaBootstrap(), config.kafka(), Topics.telemetry(config.topicPrefix()),
            "updraft-edge-checkins-" + config.edgeId(), config.checkinBuffer(), config.checkinProducerBuffer(),
            config.checkinCompact(), registry);
        dev.updraft.edge.otlp.ErrorSink errors = new dev.updraft.edge.otlp.ErrorSink(config.kafkaBootstrap(), config.kafka(),
            Topics.errors(config.topicPrefix()), "updraft-edge-" + config.edgeId(), registry);
        parts.errors = errors;
        parts.otlp = new dev.updraft.edge.otlp.OtlpRoute(live, errors::send, registry, config.edgeId(), OTLP_MAX_BODY_BYTES,
            OTLP_MAX_ERRORS_PER_REQUEST, OTLP_REQUESTS_PER_ADDRESS_MINUTE);
      }
      if (config.recordRequests() != null) {
        parts.recorder = new RequestRecorder(config.recordRequests(), config.recordSampleRate(), registry);
      }
      parts.patches = new PatchCache(live, config.patchCacheBytes(), registry);
      CheckInEmitter emitter = parts.emitter;
      String edgeId = config.edgeId();
      parts.assets = new AssetRoute(vertx, live, parts.patches, registry, emitter == null ? null
          : c -> emitter.offer(c.toBuilder().checkInId(CheckInIds.next()).edgeId(edgeId).build(), CheckInEmitter.DEVICE));
      parts.reader.start();
      parts.patches.start();
      if (parts.emitter != null) {
        parts.emitter.start();
      }
      if (parts.recorder != null) {
        parts.recorder.start();
      }
      return parts;
    }, false);

    List<String> deployments = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<FrontDoor> handlerOf = new java.util.concurrent.atomic.AtomicReference<>();
    List<HttpVerticle> servers = new CopyOnWriteArrayList<>();
    AtomicInteger loops = new AtomicInteger(); // the instances' indexes: the loop tag of their delay probes
    // port 0 on several instances: Vert.x shares one random port between the servers given the same negative
    // port, so each node takes a negative number of its own (two nodes on one Vertx must not share a port)
    int port = config.port() == 0 ? RANDOM_PORT_KEYS.decrementAndGet() : config.port();
    MetricsEndpoint scrapes = new MetricsEndpoint(vertx, registry, config.metrics());
    return opened
        .compose(p -> {
          FrontDoor handler = new FrontDoor(live, p.emitter, p.recorder, registry, config.edgeId(),
              config.accessLogSample(), p.assets, config.metrics().separatePort() ? null : scrapes)
              .withAddressBuckets(config.addressBuckets()).withOtlp(p.otlp);
          handlerOf.set(handler);
          FrontDoor warmHandler = config.warmupRequests() > 0 ? handler.forWarmup() : null;
          return vertx.deployVerticle(() -> {
            HttpVerticle v = new HttpVerticle(serverOptions(config, port), handler,
                EventLoopDelay.forLoop(registry, loops.getAndIncrement()),
                config.headerTimeout().toNanos(), headerTimeouts, servers.isEmpty() ? warmHandler : null);
            servers.add(v);
            return v;
          }, new DeploymentOptions().setInstances(config.eventLoops()));
        })
        .compose(id -> {
          deployments.add(id);
          return listenMetrics(vertx, config, scrapes, parts).map(servers.get(0).actualPort());
        })
        .map(bound -> {
          Warmup warmup = new Warmup();
          parts.warmup = warmup;
          handlerOf.get().warmup(warmup);
          Gauge.builder("updraft.edge.warmup.settle.seconds", warmup, w -> w.settleMillis() / 1000.0)
              .description("How long the edge waited after its warm-up, before ready, for a collection and an empty compile queue")
              .register(parts.registry);
          parts.drain = new Drain(config.drain());
          handlerOf.get().drain(parts.drain);
          HttpVerticle first = servers.get(0);
          warmup.run(vertx, parts.live, first.warmupPort(), config.warmupRequests(), config.warmupUntilFlat(),
              config.warmupTimeout())
              .eventually(first::closeWarmup)
              .onComplete(ar -> {
                if (!warmup.stopped()) {
                  parts.live.phases().totalToNow();
                  LOG.info("edge {} ready: {}{}", config.edgeId(), parts.live.phases(), parts.emitter == null ? ""
                      : " (warm-up check-ins acknowledged so far: " + parts.emitter.warmupSent() + ")");
                }
              });
          LOG.info("edge {} listening on {}:{} with {} event loops ({} transport), check-ins {}, reading {}, /metrics on port {}{}",
              config.edgeId(), config.bind(), bound, config.eventLoops(),
              vertx.isNativeTransportEnabled() ? "native" : "NIO", config.checkins() ? "on" : "off",
              Topics.events(config.topicPrefix()), parts.metricsServer == null ? bound : parts.metricsServer.actualPort(),
              config.metrics().protectedByToken() ? " (token)" : "");
          return new EdgeNode(vertx, parts, deployments, bound);
        })
        .recover(failure -> stop(vertx, deployments, parts).transform(ignored -> Future.failedFuture(failure)));
  }

  /** The {@code --metrics-port} listener, when there is one (kept in {@code parts} to be closed). */
  private static Future<Void> listenMetrics(Vertx vertx, EdgeConfig config, MetricsEndpoint scrapes, Parts parts) {
    if (!config.metrics().separatePort()) {
      return Future.succeededFuture();
    }
    return vertx.createHttpServer(new HttpServerOptions().setHost(config.bind()).setPort(config.metrics().port())
            .setMaxHeaderSize(config.maxHeaderSize()).setMaxInitialLineLength(HttpGuard.MAX_REQUEST_LINE_BYTES))
        .requestHandler(scrapes::handleOwnPort).listen()
        .map(m -> {
          parts.metricsServer = m;
          return null;
        });
  }

  /** Undeploys the servers, then closes the node's threads and clients off the event loop. */
  private static Future<Void> stop(Vertx vertx, List<String> deployments, Parts parts) {
    List<Future<Void>> undeploys = new ArrayList<>();
    if (parts.metricsServer != null) {
      undeploys.add(parts.metricsServer.close());
    }
    for (String id : deployments) {
      undeploys.add(vertx.undeploy(id));
    }
    return Future.join(undeploys)
        .eventually(() -> vertx.executeBlocking(() -> {
          parts.close();
          return null;
        }, false))
        .mapEmpty();
  }

  private static HttpServerOptions serverOptions(EdgeConfig config, int port) {
    return new HttpServerOptions()
        .setHost(config.bind())
        .setPort(port)
        .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, config.idleTimeout().toSeconds()))
        .setIdleTimeoutUnit(TimeUnit.SECONDS)
        .setMaxHeaderSize(config.maxHeaderSize())
        .setMaxInitialLineLength(HttpGuard.MAX_REQUEST_LINE_BYTES)
        // HTTP/1.x only (HTTP/2 ends at the load balancer): with h2c on, Vert.x would make the connection, and
        // the header timeout, only once a first request head had arrived
        .setHttp2ClearTextEnabled(false)
        .setTcpNoDelay(true)
        .setCompressionSupported(false)
        // the edge serves no WebSocket: without a compression extension to offer, Vert.x leaves Netty's
        // WebSocket extension handler out of the pipeline, which otherwise looks at every request's headers
        // and every response on their way through
        .setPerMessageWebSocketCompressionSupported(false)
        .setPerFrameWebSocketCompressionSupported(false);
  }

  /** The port the HTTP servers listen on. */
  public int port() {
    return port;
  }

  /** The port of the {@code --metrics-port} listener, or -1 when {@code /metrics} is on {@link #port()}. */
  public int metricsPort() {
    return parts.metricsServer == null ? -1 : parts.metricsServer.actualPort();
  }

  /** Warm-up requests answered so far (0 when warm-up is off or has not started). */
  long warmupAnswered() {
    Warmup w = parts.warmup;
    return w == null ? 0 : w.answered();
  }

  /** Warm-up check-ins Kafka acknowledged (0 when check-ins are off). */
  long warmupCheckInsSent() {
    return parts.emitter == null ? 0 : parts.emitter.warmupSent();
  }

  /** Whether the image has caught up with the log end seen at start. */
  public boolean ready() {
    return parts.live.ready();
  }

  /** Stops the servers, the reader, the recorder and the emitter (which first delivers what it holds, up to 10 s). */
  public Future<Void> close() {
    return stop(vertx, deployments, parts);
  }

  /** {@code --drain}: how long {@link #drainAndClose} serves before it closes. */
  public Duration drainPeriod() {
    Drain d = parts.drain;
    return d == null ? Duration.ZERO : d.period();
  }

  /**
   * Stops as behind a load balancer (on SIGTERM): {@code /readyz} answers 503 {@code draining} at once, every
   * request (in flight or new) is still answered for {@code --drain}, then {@link #close}. Logs when it starts and
   * when it closes, with the requests answered meanwhile.
   */
  public Future<Void> drainAndClose() {
    Drain d = parts.drain;
    if (d == null || d.period().isZero() || !d.start(System.nanoTime())) {
      return close();
    }
    long answeredBefore = deviceRequests();
    LOG.info("edge draining: /readyz answers 503 draining; still serving for {} ms (--drain), then closing", d.period().toMillis());
    io.vertx.core.Promise<Void> drained = io.vertx.core.Promise.promise();
    vertx.setTimer(Math.max(1, d.period().toMillis()), id -> drained.complete());
    return drained.future().compose(ignored -> {
      LOG.info("edge drained: {} device requests answered during the drain; closing", deviceRequests() - answeredBefore);
      return close();
    });
  }

  /** Device requests answered so far ({@code updraft_edge_requests_total}). */
  private long deviceRequests() {
    double n = 0;
    for (io.micrometer.core.instrument.Meter m : parts.registry.find("updraft.edge.requests").meters()) {
      if (m instanceof Counter c) {
        n += c.count();
      }
    }
    return (long) n;
  }
}
