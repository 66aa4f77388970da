package dev.updraft.controlplane.insights;

import dev.updraft.common.ConfigException;
import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.spi.ControlPlaneExtension;
import dev.updraft.controlplane.spi.ExtensionContext;
import dev.updraft.controlplane.guard.AutoRevertGuard;
import dev.updraft.controlplane.guard.RolloutGuardEvaluator;
import dev.updraft.controlplane.telemetry.TelemetryDb;
import io.micrometer.core.instrument.Gauge;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Insights in the control plane: the routes {@code GET /v1/apps/{app}/insights/updates/{groupId}},
 * {@code GET /v1/apps/{app}/insights/channels/{channel}} and {@code GET /v1/apps/{app}/devices/{clientId}}
 * (role read), and the automatic-revert guard, over the telemetry database at the control plane's
 * {@code --postgres-url}.
 *
 * <p>Use: {@code Settings s = ...; ControlPlaneConfig c = ControlPlaneConfig.from(s, InsightsExtension.FLAGS);
 * ControlPlane.start(vertx, c, List.of(InsightsExtension.from(s)))}.
 *
 * <p>Flags ({@link #FLAGS}): {@code --guard-interval} (env {@code UPDRAFT_GUARD_INTERVAL}) how often the
 * guard checks the guarded rollouts, default 30s, between 100ms and 1h; {@code 0s} turns the guard off.
 * {@code --insights-timeout} (env {@code UPDRAFT_INSIGHTS_TIMEOUT}) how long an insights request may wait
 * for PostgreSQL, default 5s, between 100ms and 60s: the server-side {@code statement_timeout}, the wait for
 * a pooled connection, and the request's own deadline (a stalled network answers no cancel); then 503.
 * {@code --guard-max-failures-per-address} (env {@code UPDRAFT_GUARD_MAX_FAILURES_PER_ADDRESS}) how many failing
 * devices one address bucket (an IPv4 /24, an IPv6 /48) counts for in a guard's window, default 10, 1 to 1000000
 * ({@link RolloutGuardEvaluator}).
 *
 * <p>PostgreSQL is not needed to start: mounting connects nothing, the first request (or guard pass)
 * connects and applies the telemetry schema if missing. While PostgreSQL cannot be used the routes answer
 * 503 {@code insights-unavailable} and the guard waits; the rest of the control plane is unaffected.
 *
 * <p>One instance is mounted once. Thread-safe.
 */
public final class InsightsExtension implements ControlPlaneExtension {
  private static final Logger LOG = LoggerFactory.getLogger(InsightsExtension.class);

  /** How often the guard runs unless {@code --guard-interval} says otherwise. */
  public static final Duration DEFAULT_GUARD_INTERVAL = Duration.ofSeconds(30);

  static final Duration MIN_GUARD_INTERVAL = Duration.ofMillis(100);
  static final Duration MAX_GUARD_INTERVAL = Duration.ofHours(1);

  /** How long an insights request waits for PostgreSQL unless {@code --insights-timeout} says otherwise. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(5);

  static final Duration MIN_QUERY_TIMEOUT = Duration.ofMillis(100);
  static final Duration MAX_QUERY_TIMEOUT = Duration.ofSeconds(60);

  private static final FlagTable.Builder T = FlagTable.builder();
  private static final Flag<Duration> GUARD_INTERVAL = T.duration("guard-interval", DEFAULT_GUARD_INTERVAL, null, null,
      "How often the automatic-revert guard checks active rollouts' failure rates: 100ms to 1h, or `0s` for no guard.");
  private static final Flag<Duration> INSIGHTS_TIMEOUT = T.duration("insights-timeout", DEFAULT_QUERY_TIMEOUT, null, null,
      "How long (100ms to 60s) an insights request waits for PostgreSQL before it is answered 503 `insights-unavailable`.");
  private static final Flag<Integer> GUARD_MAX_FAILURES_PER_ADDRESS = T.integer("guard-max-failures-per-address",
      RolloutGuardEvaluator.DEFAULT_MAX_FAILURES_PER_ADDRESS, 1, 1_000_000, "devices", "How many failing devices one address bucket"
          + " counts for in a guard's window (forged failure reports from one network move it at most this much).");

  /** The flags of the insights routes and the guard, declared once: {@code --help} and the docs include them. */
  public static final FlagTable TABLE = T.build();

  /** The flags this extension reads from the control plane's settings (pass to {@link ControlPlaneConfig#from(Settings, Set)}). */
  public static final Set<String> FLAGS = TABLE.names();


  /** The control plane's gauge saying whether this instance is the caught-up writer of the event log. */
  static final String WRITABLE_GAUGE = "updraft_control_writable";

  private final Duration guardInterval;
  private final Duration queryTimeout;
  private final Clock clock;
  private int maxFailuresPerAddress = RolloutGuardEvaluator.DEFAULT_MAX_FAILURES_PER_ADDRESS;
  private TelemetryDb db;
  private AutoRevertGuard guard;

  InsightsExtension(Duration guardInterval, Duration queryTimeout, Clock clock) {
    this.guardInterval = checkInterval(guardInterval);
    this.queryTimeout = checkTimeout(queryTimeout);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Reads {@code --guard-interval} and {@code --insights-timeout}; validated here, before anything starts. */
  public static InsightsExtension from(Settings settings) {
    InsightsExtension e = new InsightsExtension(
        GUARD_INTERVAL.read(settings),
        INSIGHTS_TIMEOUT.read(settings),
        Clock.systemUTC());
    e.maxFailuresPerAddress = GUARD_MAX_FAILURES_PER_ADDRESS.read(settings);
    return e;
  }

  /** How many failing devices one address bucket counts for in a guard's window. */
  public int maxFailuresPerAddress() {
    return maxFailuresPerAddress;
  }

  /** An extension whose guard runs every {@code guardInterval} ({@link Duration#ZERO}: no guard). */
  public static InsightsExtension withGuardInterval(Duration guardInterval) {
    return new InsightsExtension(guardInterval, DEFAULT_QUERY_TIMEOUT, Clock.systemUTC());
  }

  private static Duration checkTimeout(Duration d) {
    Objects.requireNonNull(d, "queryTimeout");
    if (d.compareTo(MIN_QUERY_TIMEOUT) < 0 || d.compareTo(MAX_QUERY_TIMEOUT) > 0) {
      throw new ConfigException(
          "--insights-timeout (UPDRAFT_INSIGHTS_TIMEOUT) must be between 100ms and 60s: got " + d.toMillis() + "ms");
    }
    return d;
  }

  /** How long an insights request waits for PostgreSQL before it is answered 503. */
  public Duration queryTimeout() {
    return queryTimeout;
  }

  private static Duration checkInterval(Duration d) {
    Objects.requireNonNull(d, "guardInterval");
    if (!d.isZero() && (d.compareTo(MIN_GUARD_INTERVAL) < 0 || d.compareTo(MAX_GUARD_INTERVAL) > 0)) {
      throw new ConfigException(
          "--guard-interval (UPDRAFT_GUARD_INTERVAL) must be between 100ms and 1h, or 0s to turn the automatic-revert guard off: got "
              + d.toMillis() + "ms");
    }
    return d;
  }

  /** How often the guard runs; zero when it is off. */
  public Duration guardInterval() {
    return guardInterval;
  }

  @Override
  public synchronized Future<Void> mount(ExtensionContext ctx) {
    if (db != null) {
      return Future.failedFuture(new IllegalStateException("an InsightsExtension is mounted once"));
    }
    TelemetryDb telemetry;
    try {
      telemetry = TelemetryDb.create(ctx.vertx(), ctx.config().postgresUrl(), ctx.config().postgresTls(), queryTimeout, "insights");
    } catch (ConfigException e) {
      return Future.failedFuture(e);
    }
    db = telemetry;
    new InsightsRoutes(ctx, telemetry, Insights.create(telemetry.pool()), clock).mount();
    new ErrorRoutes(ctx, telemetry).mount();
    if (!guardInterval.isZero()) {
      guard =
          new AutoRevertGuard(
              ctx.vertx(), ctx.rollouts(), new RolloutGuardEvaluator(telemetry.pool(), maxFailuresPerAddress), telemetry,
              () -> writable(ctx), ctx.meterRegistry(), clock, guardInterval);
      guard.start();
    }
    // first contact in the background: the control plane starts whether or not PostgreSQL is up
    telemetry.ready().onComplete(ar -> {
      if (ar.succeeded()) {
        LOG.info("insights: telemetry database at {} ready", telemetry.where());
      } // a failure is logged by TelemetryDb; the next request or guard pass tries again
    });
    return Future.succeededFuture();
  }

  /**
   * Whether this instance is the event log's writer. Read from the control plane's own gauge (the one
   * {@code /metrics} shows) so that the guard needs nothing beyond {@link ExtensionContext}; when the
   * gauge is missing the guard acts, and a non-writer's revert would be refused with 503 anyway.
   */
  private static boolean writable(ExtensionContext ctx) {
    Gauge g = ctx.meterRegistry().find(WRITABLE_GAUGE).gauge();
    return g == null || g.value() == 1.0;
  }

  @Override
  public synchronized Future<Void> close() {
    Future<Void> stopped = guard == null ? Future.succeededFuture() : guard.stop();
    TelemetryDb d = db;
    return d == null ? stopped : stopped.eventually(d::close);
  }
}
