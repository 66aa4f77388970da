package dev.updraft.edge;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.common.SharedFlags;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every flag of {@code updraft edge}, declared once ({@link FlagTable}): {@link EdgeConfig} reads its values through
 * these constants, and {@code --help} and the edge's table in docs/operations.md are made from {@link #TABLE}.
 */
public final class EdgeFlags {
  private EdgeFlags() {}

  private static final FlagTable.Builder T = FlagTable.builder().include(SharedFlags.kafka());

  static final Flag<Integer> EDGE_PORT = T.port("edge-port", 3000, true, "The devices' port (manifests, assets, `/readyz`; without"
      + " `--metrics-port` also `/metrics`).");
  static final Flag<String> BIND = T.text("bind", "0.0.0.0", "Address the edge listens on.");
  static final Flag<String> EDGE_ID = T.custom("edge-id", "the host name", "text", "Recorded in every check-in.");
  static final Flag<String> EVENT_LOOPS = T.custom("event-loops", "the number of cores", "threads (1–256)",
      "HTTP server instances.");
  static final Flag<Duration> IDLE_TIMEOUT = T.duration("idle-timeout", Duration.ofSeconds(60), null, null,
      "A connection idle that long is closed.");
  static final Flag<Integer> MAX_HEADER_SIZE = T.integer("max-header-size", 16384, 1024, 1 << 20, "bytes",
      "Larger request headers get 431.");
  static final Flag<Duration> HEADER_TIMEOUT = T.duration("header-timeout", Duration.ofSeconds(10), null, null, "A request head (from"
      + " the connection's start, or from the first byte after a complete request) taking longer closes the connection; at least 100ms.");
  static final Flag<String> ACCESS_LOG = T.custom("access-log", "off", "off \\| on \\| a share in (0, 1]",
      "Log requests: all (`on`) or this share of them.");
  static final Flag<Path> RECORD_REQUESTS = T.path("record-requests", "none (off)", "Append a sample of device requests to this file"
      + " as JSON lines (for `updraft load replay`).");
  static final Flag<String> RECORD_SAMPLE_RATE = T.custom("record-sample-rate", "0.01", "share in (0, 1]",
      "The share of requests `--record-requests` records.");
  static final Flag<Boolean> CHECKINS = T.bool("checkins", true, "Emit one check-in per device request (to `updraft.telemetry`).");
  static final Flag<Integer> CHECKIN_BUFFER = T.integer("checkin-buffer", 100_000, 1, 10_000_000, "check-ins", "Check-ins that may wait"
      + " for Kafka before new ones are dropped (and counted).");
  static final Flag<Long> CHECKIN_PRODUCER_BUFFER = T.bytes("checkin-producer-buffer", 64L << 20, 65536, 1L << 32, "Bytes of check-ins"
      + " the Kafka producer holds while the broker is unreachable, on top of the `--checkin-buffer` queued ones; when both are full,"
      + " new check-ins are dropped and counted.");
  static final Flag<String> CHECKIN_FORMAT = T.custom("checkin-format", "`compact`", "compact \\| json", "Check-ins go to Kafka in the"
      + " compact form (read by ingesters from this release on) or as JSON (for ingesters of an earlier release, during an upgrade).");
  static final Flag<Long> PATCH_CACHE_BYTES = T.bytes("patch-cache-bytes", 128L << 20, 0, 1L << 36, "Bundle patches of served groups"
      + " held in memory for the launch-asset route (0: patches are never served; full bundles still are).");
  static final Flag<Integer> WARMUP_REQUESTS = T.integer("warmup-requests", 200_000, 0, 10_000_000, "requests", "The most device"
      + " requests the edge sends itself over its image before `/readyz` answers 200 (their check-ins marked as warm-up); 0: none.");
  static final Flag<Duration> WARMUP_TIMEOUT = T.duration("warmup-timeout", Duration.ofSeconds(30), null, null,
      "The longest the warm-up runs.");
  static final Flag<Boolean> WARMUP_UNTIL_FLAT = T.bool("warmup-until-flat", true, "End the warm-up before `--warmup-requests` once its"
      + " latency has stopped falling and the hot path has the JIT's top-tier code (see [Edges](#edges)); false: always send them all.");
  static final Flag<Duration> DRAIN = T.duration("drain", Duration.ofSeconds(5), Duration.ZERO, Duration.ofMinutes(10), "On SIGTERM"
      + " (`updraft edge`): `/readyz` answers 503 `draining` at once and the edge goes on answering every request this long,"
      + " then closes, so that a load balancer that checks readiness takes it out of rotation first; 0: close at once.");
  static final Flag<Path> DATA_DIR = T.path("data-dir", "none", "Where the edge stores its image (`edge-image.bin`) to start from"
      + " when Kafka cannot be reached; none: nothing is stored.");
  static final Flag<Duration> IMAGE_INTERVAL = T.duration("image-interval", Duration.ofSeconds(30), null, null, "How often the stored"
      + " image is written when it changed (and at shutdown); at least 100ms.");
  static final Flag<Duration> STORED_IMAGE_AFTER = T.duration("stored-image-after", Duration.ofSeconds(5), null, null,
      "How long an edge starting with a stored image waits for Kafka before serving that image.");
  static final Flag<String> MAX_STALE = T.custom("max-stale", "unlimited", "duration (at least 1s) \\| unlimited", "An image older than"
      + " this (since the edge, or the stored image's writer, last heard from the log) is not served: device requests and `/readyz` get 503.");
  static final Flag<String> IMAGE_SOURCE = T.custom("image-source", "none", "directory, `file:` URL or `s3://bucket/prefix`",
      "With `--edge-image-key`: where an edge with no image of its own under `--data-dir` reads the newest one the control plane wrote.");
  static final Flag<String> IMAGE_S3_ENDPOINT = T.custom("image-s3-endpoint", "AWS's endpoint of the region", "absolute http(s) URL",
      "An S3-compatible store's URL for an `s3://` `--image-source`.");
  static final Flag<String> IMAGE_S3_REGION = T.custom("image-s3-region", "`AWS_REGION`, else `us-east-1`", "region name",
      "The region of an `s3://` `--image-source`.");
  static final Flag<String> EDGE_IMAGE_KEY = T.custom("edge-image-key", "none", "base64 of 32 bytes", "The control plane's key the"
      + " stored image is sealed with (its `--edge-image-key`).");
  static final Flag<String> ADDRESS_BUCKET_KEY = T.custom("address-bucket-key", "a random key per process", "secret, at least 16 characters",
      "Key of the check-ins' address bucket (the same on every edge makes buckets comparable across edges).");
  static final Flag<Path> ADDRESS_BUCKET_KEY_FILE = T.path("address-bucket-key-file", "none", "A file holding that key, instead of"
      + " `--address-bucket-key`.");
  static final Flag<Boolean> TRUST_FORWARDED_FOR = T.bool("trust-forwarded-for", false, "Take the device's address from"
      + " `X-Forwarded-For` (only behind a proxy that sets it).");

  static {
    T.include(SharedFlags.metrics("none: on the edge port", "port (0 = any free port)", "`/metrics` moves to a plain-HTTP listener of its own on `--bind`, which"
        + " serves `GET /metrics` only; the edge port then answers 404 on `/metrics`."));
  }

  /** Every flag of the edge, in the order {@code --help} and the docs show them. */
  public static final FlagTable TABLE = T.build();
}
