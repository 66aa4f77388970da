package dev.updraft.launcher;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.SharedFlags;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.config.ControlPlaneFlags;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every flag of {@code updraft dev}, declared once ({@link FlagTable}): {@link DevConfig} reads them through these
 * constants; {@code dev --help} and the {@code dev} table in docs/operations.md are made from {@link #TABLE}. The
 * storage and metrics flags are the services' own, passed on as they are.
 */
final class DevFlags {
  private DevFlags() {}

  private static final FlagTable.Builder T = FlagTable.builder();

  static final Flag<Path> DATA_DIR = T.path("data-dir", "`./.updraft`", "Where Kafka, PostgreSQL, the keys and the assets keep"
      + " their data; a second start on the same data dir comes back with the same state.");
  static final Flag<Integer> CONTROL_PORT = T.port("control-port", 8080, false, "The control plane's port (API and console).");
  static final Flag<Integer> EDGE_PORT = T.port("edge-port", 3000, false, "The edge's port (devices).");
  static final Flag<String> PUBLIC_URL = T.custom("public-url", "`http://127.0.0.1:<control-port>`", "http(s) URL",
      "Base of the asset URLs in manifests (where devices reach the control plane).");
  static final Flag<String> EDGE_PUBLIC_URL = T.custom("edge-public-url", "`--public-url`'s scheme and host, the edge port",
      "http(s) URL", "Where devices reach the edge for launch assets and bundle patches.");
  static final Flag<String> ADMIN_TOKEN = T.custom("admin-token", "kept in the data dir, made on the first start",
      "secret, at least 16 characters", "The bootstrap admin token (printed at start).");
  static final Flag<Integer> KAFKA_PORT = T.port("kafka-port", 0, true, "The embedded broker's port (not with `--kafka-bootstrap`).");
  static final Flag<Integer> POSTGRES_PORT = T.port("postgres-port", 0, true, "The embedded PostgreSQL's port.");
  static final Flag<String> BIND = T.text("bind", "127.0.0.1", "Address the control plane and the edge listen on.");
  static final Flag<Duration> GUARD_INTERVAL = T.duration("guard-interval", null, null, null, "How often the automatic-revert"
      + " guard checks (none: the control plane's default, 30s).");
  static final Flag<String> SNAPSHOT_INTERVAL_EVENTS = T.custom("snapshot-interval-events", "the control plane's (1000)",
      "events, 0 = off", "The control plane's `--snapshot-interval-events`.");
  static final Flag<String> SNAPSHOT_INTERVAL = T.custom("snapshot-interval", "the control plane's (10m)", "duration",
      "The control plane's `--snapshot-interval`.");
  static final Flag<Duration> INGEST_LINGER = T.duration("ingest-linger", null, null, null, "How long the ingester gathers check-ins"
      + " per PostgreSQL transaction (none: the ingester's default, 250ms).");
  static final Flag<String> ASSET_ENCODING = T.custom("asset-encoding", "the control plane's (`best`)", "best \\| fast",
      "`fast`: a publish's zstd, br and gzip copies at low levels (quicker, somewhat larger), for trying things out.");
  static final Flag<Duration> START_TIMEOUT = T.duration("start-timeout", Duration.ofMinutes(10), null, null, "The longest each"
      + " service may take to start (at least 10s): the control plane and the edge replay the event log after the snapshots.");
  static final Flag<String> KAFKA_BOOTSTRAP = T.custom("kafka-bootstrap", "none: the embedded broker", "host:port,...",
      "An external Kafka cluster every service uses instead of the embedded broker.");
  static final Flag<Path> KAFKA_CONFIG = T.path(KafkaClientConfig.FLAG, "none", "That cluster's client properties (TLS, SASL),"
      + " passed to every service; needs `--kafka-bootstrap`. See [Secured Kafka](#secured-kafka).");

  static {
    T.include(SharedFlags.metrics("", "", "-").only(MetricsAccess.TOKEN_FLAGS));
    T.include(ControlPlaneFlags.TABLE.only(ControlPlaneConfig.STORAGE_FLAGS));
  }

  /** Every flag of {@code dev}, in the order {@code --help} and the docs show them. */
  static final FlagTable TABLE = T.build();
}
