package dev.updraft.edge;

import dev.updraft.common.ConfigException;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.Settings;
import dev.updraft.edge.log.ImageSource;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * The edge node's configuration, read once from {@link Settings} (flags and {@code UPDRAFT_*}
 * environment variables) and validated at start. Immutable.
 *
 * @param kafkaBootstrap {@code --kafka-bootstrap}, default {@code 127.0.0.1:9092}
 * @param kafka {@code --kafka-config FILE}: Kafka client properties (TLS, SASL...) for the edge's consumers and its
 *     check-in producer ({@link KafkaClientConfig}); none by default
 * @param topicPrefix {@code --topic-prefix}, default empty
 * @param port {@code --edge-port}, default 3000 (0: any free port)
 * @param bind {@code --bind}, default {@code 0.0.0.0}
 * @param edgeId {@code --edge-id}, default the host name: recorded in every check-in
 * @param checkins {@code --checkins}, default true: emit one check-in per device request
 * @param checkinBuffer {@code --checkin-buffer}, default 100000: check-ins that may wait for Kafka before
 *     new ones are dropped (and counted)
 * @param eventLoops {@code --event-loops}, default the number of cores: HTTP server instances
 * @param accessLogSample {@code --access-log}: 0 (off, the default), or the share of requests logged
 *     ({@code on} = 1)
 * @param recordRequests {@code --record-requests FILE}: append a sample of device requests as JSON lines;
 *     null when off
 * @param recordSampleRate {@code --record-sample-rate}, default 0.01: the share recorded
 * @param idleTimeout {@code --idle-timeout}, default 60s: a connection idle that long is closed
 * @param maxHeaderSize {@code --max-header-size}, default 16384 bytes: larger request headers get 431
 * @param headerTimeout {@code --header-timeout}, default 10s: a request head (from the connection's start,
 *     or from the first byte after a complete request) taking longer closes the connection
 * @param checkinProducerBuffer {@code --checkin-producer-buffer}, default 64 MiB: bytes of check-ins the Kafka
 *     producer holds while the broker is unreachable, on top of the {@code --checkin-buffer} queued ones;
 *     when both are full, new check-ins are dropped and counted
 * @param patchCacheBytes {@code --patch-cache-bytes}, default 128 MiB: bundle patches of served groups held in
 *     memory for the launch-asset route (0: patches are never served; full bundles still are)
 * @param checkinCompact {@code --checkin-format compact|json}, default compact: check-ins go to Kafka in the
 *     compact form ({@code CheckInBinary}, read by ingesters from this release on) or as JSON (for ingesters
 *     of an earlier release, during an upgrade that has not reached them yet)
 * @param warmupRequests {@code --warmup-requests}, default 200000: the most device requests the edge sends itself
 *     over its image before {@code /readyz} answers 200 (their check-ins marked as warm-up, skipped by ingesters); 0: none
 * @param warmupTimeout {@code --warmup-timeout}, default 30s: the longest the warm-up runs
 * @param warmupUntilFlat {@code --warmup-until-flat}, default true: the warm-up ends before {@code
 *     --warmup-requests} once its latency has stopped falling (three windows of a twentieth of its requests, at
 *     most 1,000, without a 10 % gain on the best), the JIT compiles under 10 % of the last window and the hot
 *     path has the JIT's top-tier code, after at least a quarter of them (at most 5,000); false: it always sends them all
 * @param dataDir {@code --data-dir}, default none: where the edge stores its image (file {@code edge-image.bin}) to start
 *     from when Kafka cannot be reached; null: nothing is stored
 * @param imageInterval {@code --image-interval}, default 30s: how often the stored image is written when it changed
 *     (and at shutdown)
 * @param storedImageAfter {@code --stored-image-after}, default 5s: how long an edge starting with a stored image
 *     waits for Kafka before serving that image
 * @param maxStale {@code --max-stale}, default unlimited (null): an image older than this (since the edge, or the
 *     stored image's writer, last heard from the log) is not served: device requests get 503 and {@code /readyz} 503
 * @param imageSource nullable: {@code --image-source} with {@code --edge-image-key} (and {@code --image-s3-*}): where an edge
 *     with no image of its own under {@code --data-dir} reads the newest one the control plane wrote to the asset storage
 * @param metrics {@code --metrics-token} or {@code --metrics-token-file} (default none: {@code /metrics} is public) and
 *     {@code --metrics-port} (default none: {@code /metrics} on the edge port; 0: any free port)
 * @param addressBuckets {@code --address-bucket-key} or {@code --address-bucket-key-file} (default: a random key per
 *     process) and {@code --trust-forwarded-for} (default false): the check-ins' address bucket ({@link AddressBuckets})
 * @param drain {@code --drain}, default 5s: told to stop ({@link EdgeNode#drainAndClose}, on SIGTERM), the edge answers
 *     {@code /readyz} 503 {@code draining} and goes on serving this long before it closes; zero: it closes at once
 */
public record EdgeConfig(
    String kafkaBootstrap,
    KafkaClientConfig kafka,
    String topicPrefix,
    int port,
    String bind,
    String edgeId,
    boolean checkins,
    int checkinBuffer,
    int eventLoops,
    double accessLogSample,
    Path recordRequests,
    double recordSampleRate,
    Duration idleTimeout,
    int maxHeaderSize,
    Duration headerTimeout,
    long checkinProducerBuffer,
    long patchCacheBytes,
    boolean checkinCompact,
    int warmupRequests,
    Duration warmupTimeout,
    boolean warmupUntilFlat,
    Path dataDir,
    Duration imageInterval,
    Duration storedImageAfter,
    Duration maxStale,
    ImageSource imageSource,
    MetricsAccess metrics,
    AddressBuckets addressBuckets,
    Duration drain) {

  /** Every flag the edge accepts, without the leading dashes: those of {@link EdgeFlags#TABLE}. */
  public static final Set<String> FLAGS = EdgeFlags.TABLE.names();

  public EdgeConfig {
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigException("--kafka-bootstrap must not be empty");
    }
    if (kafka == null) {
      kafka = KafkaClientConfig.none();
    }
    if (topicPrefix == null) {
      topicPrefix = "";
    }
    if (port < 0 || port > 65535) {
      throw new ConfigException("--edge-port must be between 0 and 65535: got " + port);
    }
    if (edgeId == null || edgeId.isBlank()) {
      throw new ConfigException("--edge-id must not be empty");
    }
    if (checkinBuffer < 1) {
      throw new ConfigException("--checkin-buffer must be at least 1: got " + checkinBuffer);
    }
    if (eventLoops < 1) {
      throw new ConfigException("--event-loops must be at least 1: got " + eventLoops);
    }
    if (!(accessLogSample >= 0 && accessLogSample <= 1)) {
      throw new ConfigException("--access-log must be off, on or a share in (0, 1]: got " + accessLogSample);
    }
    if (!(recordSampleRate > 0 && recordSampleRate <= 1)) {
      throw new ConfigException("--record-sample-rate must be in (0, 1]: got " + recordSampleRate);
    }
    if (idleTimeout == null || idleTimeout.isNegative()) {
      throw new ConfigException("--idle-timeout must not be negative: got " + idleTimeout);
    }
    if (maxHeaderSize < 1024) {
      throw new ConfigException("--max-header-size must be at least 1024: got " + maxHeaderSize);
    }
    if (headerTimeout == null || headerTimeout.toMillis() < 100) {
      throw new ConfigException("--header-timeout must be at least 100ms: got " + headerTimeout);
    }
    if (checkinProducerBuffer < 65536) {
      throw new ConfigException("--checkin-producer-buffer must be at least 65536 bytes: got " + checkinProducerBuffer);
    }
    if (metrics == null) {
      metrics = MetricsAccess.OPEN;
    }
    if (metrics.separatePort() && metrics.port() != 0 && metrics.port() == port) {
      throw new ConfigException("--metrics-port must differ from --edge-port: both are " + port);
    }
    if (patchCacheBytes < 0) {
      throw new ConfigException("--patch-cache-bytes must not be negative: got " + patchCacheBytes);
    }
    if (imageInterval == null || imageInterval.toMillis() < 100) {
      throw new ConfigException("--image-interval must be at least 100ms: got " + imageInterval);
    }
    if (storedImageAfter == null || storedImageAfter.isNegative()) {
      throw new ConfigException("--stored-image-after must not be negative: got " + storedImageAfter);
    }
    if (drain == null) {
      drain = Duration.ZERO;
    }
    if (drain.isNegative()) {
      throw new ConfigException("--drain must not be negative: got " + drain);
    }
    if (maxStale != null && maxStale.toMillis() < 1000) {
      throw new ConfigException("--max-stale must be at least 1s (or unlimited): got " + maxStale);
    }
  }

  /**
   * Reads and validates the configuration.
   *
   * @throws ConfigException naming the flag, for an unknown flag or a bad value
   */
  public static EdgeConfig from(Settings s) {
    EdgeFlags.TABLE.rejectUnknown(s, Set.of());
    if (s.has("record-sample-rate") && !s.has("record-requests")) {
      throw new ConfigException("--record-sample-rate needs --record-requests FILE");
    }
    String edgeId = EdgeFlags.EDGE_ID.read(s);
    return new EdgeConfig(
        s.string("kafka-bootstrap", "127.0.0.1:9092"),
        KafkaClientConfig.from(s),
        s.string("topic-prefix", ""),
        EdgeFlags.EDGE_PORT.read(s),
        EdgeFlags.BIND.read(s),
        edgeId == null ? defaultEdgeId() : edgeId,
        EdgeFlags.CHECKINS.read(s),
        EdgeFlags.CHECKIN_BUFFER.read(s),
        s.integer(EdgeFlags.EVENT_LOOPS.name(), Runtime.getRuntime().availableProcessors(), 1, 256),
        accessLog(EdgeFlags.ACCESS_LOG.read(s)),
        EdgeFlags.RECORD_REQUESTS.read(s),
        share("record-sample-rate", EdgeFlags.RECORD_SAMPLE_RATE.read(s), 0.01),
        EdgeFlags.IDLE_TIMEOUT.read(s),
        EdgeFlags.MAX_HEADER_SIZE.read(s),
        EdgeFlags.HEADER_TIMEOUT.read(s),
        EdgeFlags.CHECKIN_PRODUCER_BUFFER.read(s),
        EdgeFlags.PATCH_CACHE_BYTES.read(s),
        checkinFormat(EdgeFlags.CHECKIN_FORMAT.read(s)),
        EdgeFlags.WARMUP_REQUESTS.read(s),
        EdgeFlags.WARMUP_TIMEOUT.read(s),
        EdgeFlags.WARMUP_UNTIL_FLAT.read(s),
        EdgeFlags.DATA_DIR.read(s),
        EdgeFlags.IMAGE_INTERVAL.read(s),
        EdgeFlags.STORED_IMAGE_AFTER.read(s),
        maxStale(s),
        ImageSource.from(s),
        MetricsAccess.from(s, true),
        AddressBuckets.from(s),
        EdgeFlags.DRAIN.read(s));
  }

  private static Duration maxStale(Settings s) {
    String v = EdgeFlags.MAX_STALE.read(s);
    return v == null || v.trim().equalsIgnoreCase("unlimited") ? null : s.duration("max-stale", null);
  }

  private static boolean checkinFormat(String v) {
    return switch (v == null ? "compact" : v) {
      case "compact" -> true;
      case "json" -> false;
      default -> throw new ConfigException("--checkin-format must be compact or json: got " + v);
    };
  }

  private static double accessLog(String v) {
    if (v == null) {
      return 0;
    }
    switch (v.toLowerCase(Locale.ROOT)) {
      case "off": case "false": case "no": case "0":
        return 0;
      case "on": case "true": case "yes":
        return 1;
      default:
        return share("access-log", v, 0);
    }
  }

  private static double share(String flag, String v, double def) {
    if (v == null) {
      return def;
    }
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new ConfigException("--" + flag + " (" + Settings.envName(flag) + ") must be a number in (0, 1]: got '" + v + "'");
    }
    if (!(d > 0 && d <= 1)) {
      throw new ConfigException("--" + flag + " (" + Settings.envName(flag) + ") must be in (0, 1]: got " + v);
    }
    return d;
  }

  private static String defaultEdgeId() {
    String h = System.getenv("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "edge";
    }
  }
}
