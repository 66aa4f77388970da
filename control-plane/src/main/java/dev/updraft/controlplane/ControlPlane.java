package dev.updraft.controlplane;

import dev.updraft.common.KafkaRefusal;
import dev.updraft.common.http.HeaderTimeout;
import dev.updraft.controlplane.api.MetricsListener;
import dev.updraft.controlplane.api.PublisherApi;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.commands.Commands;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.EdgeImageFlags;
import dev.updraft.controlplane.config.HttpFlags;
import dev.updraft.controlplane.config.TlsFiles;
import dev.updraft.controlplane.history.HistoryReads;
import dev.updraft.controlplane.console.ConsoleRoutes;
import dev.updraft.controlplane.log.EventLog;
import dev.updraft.controlplane.log.TopicSetup;
import dev.updraft.controlplane.edgeimage.EdgeImageWriter;
import dev.updraft.controlplane.snapshots.Snapshotter;
import dev.updraft.controlplane.patches.Delivery;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.spi.ActiveRollout;
import dev.updraft.controlplane.spi.ControlPlaneExtension;
import dev.updraft.controlplane.spi.RolloutControl;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.LocalAssetRoute;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.Topics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control plane service: publisher API, command validation, the single-writer event log, signing,
 * storage, and the web console at {@code /console/}. {@link #start} creates the topics when missing,
 * fences any earlier writer, replays {@code updraft.events} to its end and only then listens, so the
 * returned future completes once the instance serves and has caught up.
 *
 * <p>Thread-safety: the instance is safe to use from any thread; commands run on one internal thread.
 */
public final class ControlPlane {
  private static final Logger LOG = LoggerFactory.getLogger(ControlPlane.class);
  private static final byte[] HEADER_TIMEOUT_ANSWER = HeaderTimeout.answer("the control plane");

  private final Vertx vertx;
  private final ControlPlaneConfig config;
  private final CommandProcessor processor;
  private final Commands commands;
  private final AssetStorage storage;
  private final HttpServer server;
  private final List<ControlPlaneExtension> extensions;
  private final RolloutControl rollouts;
  private final String publicUrl;
  private final long renewalTimer;
  /** Retention and asset-prune schedules; set once started. */
  private Housekeeping housekeeping;
  /** Nullable: no {@code --edge-image-key}. */
  private EdgeImageWriter edgeImages;
  private HistoryReads history;
  /** Nullable: the {@code --metrics-port} listener. */
  private HttpServer metricsServer;
  private final Delivery delivery;
  private Future<Void> closing;

  private ControlPlane(
      Vertx vertx,
      ControlPlaneConfig config,
      CommandProcessor processor,
      Commands commands,
      AssetStorage storage,
      HttpServer server,
      List<ControlPlaneExtension> extensions,
      RolloutControl rollouts,
      String publicUrl,
      long renewalTimer,
      Delivery delivery) {
    this.vertx = vertx;
    this.config = config;
    this.processor = processor;
    this.commands = commands;
    this.storage = storage;
    this.server = server;
    this.extensions = extensions;
    this.rollouts = rollouts;
    this.publicUrl = publicUrl;
    this.renewalTimer = renewalTimer;
    this.delivery = delivery;
  }

  /** Starts a control plane without extensions. */
  public static Future<ControlPlane> start(Vertx vertx, ControlPlaneConfig config) {
    return start(vertx, config, List.of());
  }

  /** Starts a control plane and mounts {@code extensions} (in order) before it listens. */
  public static Future<ControlPlane> start(Vertx vertx, ControlPlaneConfig config, List<ControlPlaneExtension> extensions) {
    return start(vertx, config, extensions, Hooks.NONE);
  }

  static Future<ControlPlane> start(
      Vertx vertx, ControlPlaneConfig config, List<ControlPlaneExtension> extensions, Hooks hooks) {
    LOG.info("starting control plane {}", config);
    // set once: from the configuration, or when the server listens on a port chosen then; read by local storage's URLs
    AtomicReference<String> url = new AtomicReference<>(
        config.publicUrl() != null ? config.publicUrl() : config.controlPort() != 0 ? defaultUrl(config, config.controlPort()) : null);
    Path tmp = config.dataDir().resolve("tmp");
    return vertx
        .executeBlocking(
            () -> {
              Files.createDirectories(tmp);
              try (var stale = Files.newDirectoryStream(tmp, "upload-*.part")) {
                for (Path p : stale) {
                  Files.deleteIfExists(p); // left by an upload cut short by a crash
                }
              }
              KeyStore keys = new KeyStore(config.keyStoreDir(), config.masterKey(), config.keys().allowPlaintextKeys());
              warnAboutKeys(config);
              AssetStorage storage = StorageSetup.open(config, hooks, url::get);
              TlsFiles tls = config.tls() ? TlsFiles.load(config.tlsCert(), config.tlsKey()) : null;
              return new Opened(keys, storage, ConsoleRoutes.load(), tls);
            })
        .compose(
            opened -> {
              KeyStore keys = opened.keys();
              AssetStorage storage = opened.storage();
              ConsoleRoutes console = opened.console();
              TlsFiles tls = opened.tls();
              PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
              EventLog log = new EventLog(config.kafkaBootstrap(), config.kafka(), Topics.events(config.topicPrefix()), config.transactionalId());
              CommandProcessor processor = new CommandProcessor(log, hooks.clock(), metrics, hooks.afterCommit());
              if (config.snapshots().on()) {
                processor.snapshots(
                    new Snapshotter(config.kafkaBootstrap(), config.kafka(), Topics.snapshots(config.topicPrefix()), config.snapshots(), metrics),
                    hooks.beforeSnapshotCommit());
              }
              Future<Void> started =
                  processor.start(
                      vertx,
                      () -> {
                        TopicSetup.ensure(
                            config.kafkaBootstrap(), config.kafka(), topics(config), Topics.events(config.topicPrefix()),
                            config.replicationFactor(), config.minInsyncReplicas(), Duration.ofSeconds(60));
                        log.startWriter(Duration.ofSeconds(60));
                        return null;
                      },
                      Duration.ofMinutes(10));
              return started
                  .compose(v -> vertx.executeBlocking(() -> keys.sweep(processor.state().apps().keySet())))
                  // before it listens: the first publish must not be the one that loads the key code and waits for the JIT
                  .compose(v -> vertx.executeBlocking(() -> CommandWarmup.run(keys, config.commandWarmup())))
                  .map(warm -> {
                    warm.register(metrics);
                    return null;
                  })
                  .compose(v -> listen(vertx, config, extensions, keys, storage, console, metrics, processor, tmp, url, tls, hooks))
                  .recover(
                      t -> vertx
                          .executeBlocking(
                              () -> {
                                processor.close();
                                storage.close();
                                return null;
                              })
                          .transform(x -> Future.failedFuture(t)));
            })
        .recover(t -> Future.failedFuture(kafkaRefusal(config, t)));
  }

  /** What a start opens on a worker thread before the event log starts. */
  private record Opened(KeyStore keys, AssetStorage storage, ConsoleRoutes console, TlsFiles tls) {}

  /** A start Kafka refused (credentials, TLS, an ACL) fails with the reason and the setting to fix, in one line. */
  private static Throwable kafkaRefusal(ControlPlaneConfig config, Throwable t) {
    String why = KafkaRefusal.of(t);
    return why == null ? t : new IllegalStateException("Kafka at " + config.kafkaBootstrap() + ": " + why, t);
  }

  private static Future<ControlPlane> listen(
      Vertx vertx,
      ControlPlaneConfig config,
      List<ControlPlaneExtension> extensions,
      KeyStore keys,
      AssetStorage storage,
      ConsoleRoutes console,
      PrometheusMeterRegistry metrics,
      CommandProcessor processor,
      Path tmp,
      AtomicReference<String> url,
      TlsFiles tls,
      Hooks hooks) {
    // the audit log and the groups no longer held, as the ingester projects them into PostgreSQL (connects lazily)
    HistoryReads history = HistoryReads.create(vertx, config.postgresUrl(), config.postgresTls(), metrics);
    Commands commands =
        new Commands(vertx, processor, Delivery.decorate(storage, config), keys, metrics, history, hooks.renewalUrlsPerCommand());
    commands.keys().expiry().refresh(); // the log is replayed: every key's certificate expiry is known
    RolloutControl rollouts = new Rollouts(commands);
    PublisherApi api =
        new PublisherApi(vertx, new PublisherApi.Deps(config, commands, processor, storage, metrics, tmp, rollouts, history));
    if (storage instanceof LocalAssetStorage) {
      LocalAssetRoute.mount(vertx, api.router(), (LocalAssetStorage) storage);
    }
    console.mount(api.router()); // always: /console/ and the redirect from /
    Delivery delivery = Delivery.start(vertx, config, processor, commands, storage, tmp, metrics, api.extensionContext());
    Future<Void> mounted = Future.succeededFuture();
    for (ControlPlaneExtension e : extensions) {
      mounted = mounted.compose(v -> e.mount(api.extensionContext()));
    }
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(config.bind())
            .setPort(config.controlPort())
            .setCompressionSupported(false)
            // HTTP/1.1 only: Java's HttpClient (the CLI's) offers an h2c upgrade on plain HTTP, and large answers on
            // an upgraded connection sometimes reached it as a broken HTTP/2 frame (HttpHardeningIT)
            .setHttp2ClearTextEnabled(false)
            .setMaxHeaderSize(HttpFlags.MAX_HEADER_BYTES)
            .setMaxInitialLineLength(HttpFlags.MAX_REQUEST_LINE_BYTES)
            .setIdleTimeout((int) config.http().idleTimeout().toSeconds())
            .setIdleTimeoutUnit(TimeUnit.SECONDS);
    if (tls != null) {
      options
          .setSsl(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertValue(Buffer.buffer(tls.certificatePem()))
                  .setKeyValue(Buffer.buffer(tls.keyPem())));
    }
    HttpServer server = vertx.createHttpServer(options);
    Counter headerTimeouts = Counter.builder("updraft.control.header.timeouts")
        .description("Connections closed because a request head took longer than --header-timeout")
        .register(metrics);
    long headerNanos = config.http().headerTimeout().toNanos();
    server.connectionHandler(c -> HeaderTimeout.install(c, headerNanos, headerTimeouts, HEADER_TIMEOUT_ANSWER));
    HttpServer[] metricsOf = new HttpServer[1];
    return mounted
        .compose(v -> server.requestHandler(api.router()).invalidRequestHandler(PublisherApi::invalidRequest).listen())
        .compose(s -> MetricsListener.listen(vertx, config, metrics).map(m -> {
          metricsOf[0] = m;
          return s;
        }).onFailure(t -> server.close()))
        .onFailure(t -> {
          delivery.close();
          history.close();
        })
        .map(
            s -> {
              url.compareAndSet(null, defaultUrl(config, s.actualPort()));
              long timer = -1;
              Duration ttl = storage.urlTtl();
              if (ttl != null) {
                // a tenth of the lifetime: renewal is due past half of it, so it always happens before expiry
                long period = Math.max(1_000, Math.min(3_600_000, ttl.toMillis() / 10));
                timer = vertx.setPeriodic(period, period, id -> commands.renewals().renewDue().onFailure(t -> LOG.warn("renewal failed: {}", t.getMessage())));
              }
              LOG.info(
                  "control plane listening on {}:{} publicUrl={} storage={} keyStore={} /metrics on port {}{}",
                  config.bind(), s.actualPort(), url.get(), storage.describe(), keys.directory(),
                  metricsOf[0] == null ? s.actualPort() : metricsOf[0].actualPort(), config.metrics().protectedByToken() ? " (token)" : "");
              ControlPlane cp =
                  new ControlPlane(vertx, config, processor, commands, storage, s, List.copyOf(extensions), rollouts, url.get(), timer, delivery);
              cp.housekeeping = Housekeeping.start(vertx, config.lifecycle(), commands);
              EdgeImageFlags ei = config.edgeImage();
              cp.edgeImages = !ei.on() ? null : new EdgeImageWriter(config.kafkaBootstrap(), config.kafka(), Topics.events(config.topicPrefix()),
                  Topics.snapshots(config.topicPrefix()), storage.edgeImages(), ei.seal(), ei.interval(), ei.keep(), metrics).start();
              cp.history = history;
              cp.metricsServer = metricsOf[0];
              return cp;
            });
  }

  /** At every start: where private keys stand when no master key seals them. */
  private static void warnAboutKeys(ControlPlaneConfig config) {
    if (config.masterKey() != null) {
      return;
    }
    if (config.keys().allowPlaintextKeys()) {
      LOG.warn("private signing keys are stored IN CLEAR under {} (--allow-plaintext-keys): whoever reads that directory can sign"
          + " updates for every app; give --master-key (UPDRAFT_MASTER_KEY) outside a test bench", config.keyStoreDir());
    } else {
      LOG.warn("no --master-key (UPDRAFT_MASTER_KEY): registering or rotating a signing key is refused (409 master-key-required)"
          + " until one is given (openssl rand -base64 32), or --allow-plaintext-keys accepts keys in clear under {}", config.keyStoreDir());
    }
  }

  private static String defaultUrl(ControlPlaneConfig config, int port) {
    String host = "0.0.0.0".equals(config.bind()) || "::".equals(config.bind()) ? "127.0.0.1" : config.bind();
    return (config.tls() ? "https://" : "http://") + host + ":" + port;
  }

  private static List<TopicSetup.Spec> topics(ControlPlaneConfig config) {
    return TopicSetup.updraftTopics(config.topicPrefix(), config.eventsPartitions(), config.telemetryPartitions(), config.telemetryRetention());
  }

  /** The port the HTTP server listens on. */
  /** Writes the snapshot of every app with events since its last one now, in bounded transactions (tests, operations); how many. */
  Future<Integer> snapshotNow() {
    return processor.snapshotDue(vertx, true);
  }

  /** How this instance started: apps from snapshots and events replayed after them ({0, records} without snapshots). */
  long[] startedFrom() {
    var s = processor.snapshots();
    return s == null ? new long[] {0, -1} : new long[] {s.snapshotApps(), s.eventsReplayed()};
  }

  public int port() {
    return server.actualPort();
  }

  /** The port of the {@code --metrics-port} listener, or -1 when {@code /metrics} is on {@link #port()}. */
  public int metricsPort() {
    return metricsServer == null ? -1 : metricsServer.actualPort();
  }

  /** The base URL asset URLs start with (local storage). */
  public String publicUrl() {
    return publicUrl;
  }

  public ControlPlaneConfig config() {
    return config;
  }

  /** The in-process rollout entry for the automatic-revert guard. */
  public RolloutControl rollouts() {
    return rollouts;
  }

  /** Whether this instance is the writer and caught up ({@code ok}), or why not. */
  public String health() {
    return processor.health().name().toLowerCase(java.util.Locale.ROOT);
  }

  ControlState state() {
    return processor.state();
  }

  /** How many states the command processor published (tests: one per command). */
  long stateVersion() {
    return processor.stateVersion();
  }

  Commands commands() {
    return commands;
  }

  /** Stops listening, closes extensions and the event log. Idempotent. */
  public synchronized Future<Void> close() {
    if (closing != null) {
      return closing;
    }
    if (renewalTimer >= 0) {
      vertx.cancelTimer(renewalTimer);
    }
    if (housekeeping != null) {
      housekeeping.stop();
    }
    Future<Void> ext = Future.succeededFuture();
    for (ControlPlaneExtension e : extensions) {
      ext = ext.eventually(() -> e.close());
    }
    closing =
        ext.eventually(() -> server.close())
            .eventually(() -> metricsServer == null ? Future.<Void>succeededFuture() : metricsServer.close())
            .eventually(() -> history == null ? Future.<Void>succeededFuture() : history.close())
            .eventually(
                () -> vertx.executeBlocking(
                    () -> {
                      if (edgeImages != null) {
                        edgeImages.close();
                      }
                      delivery.close();
                      processor.close();
                      storage.close();
                      return null;
                    }))
            .mapEmpty();
    return closing;
  }

  /** {@link RolloutControl} over the commands. */
  private static final class Rollouts implements RolloutControl {
    private final Commands commands;

    Rollouts(Commands commands) {
      this.commands = commands;
    }

    @Override
    public List<ActiveRollout> activeRollouts() {
      List<ActiveRollout> out = new ArrayList<>();
      for (AppState app : commands.state().apps().values()) {
        for (GroupState g : app.activeRollouts()) {
          Map<String, String> ids = new LinkedHashMap<>();
          for (PlatformUpdate p : g.group().platforms()) {
            ids.put(p.platform(), p.updateId());
          }
          out.add(
              new ActiveRollout(
                  app.appId(), g.groupId(), g.rollout().rolloutId(), g.group().branch(), g.group().runtimeVersion(),
                  g.rollout().percentage(), g.rollout().controlGroupId(), g.rollout().guard(), Map.copyOf(ids),
                  g.rollout().startedAt(), g.rollout().changedAt(), controlUpdateIds(app, g.rollout().controlGroupId())));
        }
      }
      return out;
    }

    private static List<String> controlUpdateIds(AppState app, String controlGroupId) {
      GroupState c = controlGroupId == null ? null : app.group(controlGroupId);
      List<String> ids = new ArrayList<>();
      if (c != null) {
        for (PlatformUpdate p : c.group().platforms()) {
          ids.add(p.updateId());
        }
      }
      return ids;
    }

    @Override
    public Future<String> revertByGuard(String appId, String groupId, String reason) {
      return commands.rollouts().revertRollout(Commands.ACTOR_GUARD, appId, groupId, reason).map(r -> r.replacement().groupId());
    }
  }
}
