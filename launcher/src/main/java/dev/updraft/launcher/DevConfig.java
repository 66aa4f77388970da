package dev.updraft.launcher;

import dev.updraft.common.ConfigException;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Configuration of {@code ./updraft dev}, validated at start.
 *
 * @param adminToken null: use the one kept in the data dir, or generate it once
 * @param kafkaPort 0: a free port at each start
 * @param postgresPort 0: a free port at each start
 * @param guardInterval null: the control plane's default (how often the automatic-revert guard checks)
 * @param edgePublicUrl where devices reach the edge (launch assets, bundle patches): by default the public
 *     URL's scheme and host with the edge port
 * @param storage the control plane's storage flags given to {@code dev} ({@code --storage s3 --s3-bucket B ...}),
 *     passed on as they are and checked by the control plane's own configuration
 * @param snapshotIntervalEvents null: the control plane's default ({@code --snapshot-interval-events})
 * @param snapshotInterval null: the control plane's default ({@code --snapshot-interval})
 * @param ingestLinger null: the ingester's default ({@code --ingest-linger})
 * @param assetEncoding null: the control plane's default ({@code --asset-encoding best}); {@code fast} makes a
 *     publish's zstd, br and gzip copies at low levels (quick, somewhat larger), for trying things out
 * @param startTimeout {@code --start-timeout}, default 10m: the longest each service may take to start (the
 *     control plane and the edge replay the event log after the snapshots; a long log on a busy machine takes
 *     minutes)
 * @param kafkaBootstrap {@code --kafka-bootstrap}: null runs the embedded broker; else every service uses this
 *     (external) cluster
 * @param kafkaConfig {@code --kafka-config FILE}: that cluster's client properties, passed to every service; needs
 *     {@code --kafka-bootstrap} (the embedded broker is plaintext and anonymous)
 * @param metrics {@code --metrics-token} or {@code --metrics-token-file} as given, passed to every service: their
 *     {@code /metrics} then need that token
 *
 * <p>The flags are declared in {@link DevFlags}.
 */
record DevConfig(
    Path dataDir,
    int controlPort,
    int edgePort,
    String publicUrl,
    String adminToken,
    int kafkaPort,
    int postgresPort,
    String bind,
    String guardInterval,
    String edgePublicUrl,
    Map<String, String> storage,
    String snapshotIntervalEvents,
    String snapshotInterval,
    String ingestLinger,
    String assetEncoding,
    java.time.Duration startTimeout,
    String kafkaBootstrap,
    String kafkaConfig,
    Map<String, String> metrics) {

  static final Set<String> FLAGS = flags();

  private static Set<String> flags() {
    Set<String> f = new HashSet<>(DevFlags.TABLE.names());
    f.add("help");
    return Set.copyOf(f);
  }

  static DevConfig from(Settings s) {
    s.rejectUnknown(FLAGS);
    if (!s.positional().isEmpty()) {
      throw new ConfigException("dev takes no arguments, only flags: got " + s.positional());
    }
    int controlPort = DevFlags.CONTROL_PORT.read(s);
    int edgePort = DevFlags.EDGE_PORT.read(s);
    if (controlPort == edgePort) {
      throw new ConfigException("--control-port and --edge-port must differ: both are " + controlPort);
    }
    String given = DevFlags.PUBLIC_URL.read(s);
    String publicUrl = given == null ? "http://127.0.0.1:" + controlPort : given;
    if (!publicUrl.startsWith("http://") && !publicUrl.startsWith("https://")) {
      throw new ConfigException("--public-url (UPDRAFT_PUBLIC_URL) must start with http:// or https://: got '" + publicUrl + "'");
    }
    if (publicUrl.endsWith("/")) {
      publicUrl = publicUrl.substring(0, publicUrl.length() - 1);
    }
    String edgeUrl = DevFlags.EDGE_PUBLIC_URL.read(s);
    if (edgeUrl == null) {
      java.net.URI u = java.net.URI.create(publicUrl);
      edgeUrl = u.getScheme() + "://" + u.getHost() + ":" + edgePort;
    } else if (edgeUrl.endsWith("/")) {
      edgeUrl = edgeUrl.substring(0, edgeUrl.length() - 1);
    }
    String kafkaBootstrap = DevFlags.KAFKA_BOOTSTRAP.read(s);
    String kafkaConfig = s.raw(DevFlags.KAFKA_CONFIG.name());
    if (kafkaConfig != null && kafkaBootstrap == null) {
      throw new ConfigException("--kafka-config (UPDRAFT_KAFKA_CONFIG) needs --kafka-bootstrap: the embedded broker takes plaintext,"
          + " anonymous clients; give the external cluster's --kafka-bootstrap with its --kafka-config");
    }
    if (kafkaBootstrap != null && DevFlags.KAFKA_PORT.given(s)) {
      throw new ConfigException("--kafka-port is the embedded broker's; with --kafka-bootstrap " + kafkaBootstrap + " none is started");
    }
    return new DevConfig(
        dataDir(s),
        controlPort,
        edgePort,
        publicUrl,
        DevFlags.ADMIN_TOKEN.read(s),
        DevFlags.KAFKA_PORT.read(s),
        DevFlags.POSTGRES_PORT.read(s),
        DevFlags.BIND.read(s),
        millis(DevFlags.GUARD_INTERVAL.read(s)),
        edgeUrl,
        given(s, ControlPlaneConfig.STORAGE_FLAGS),
        DevFlags.SNAPSHOT_INTERVAL_EVENTS.read(s),
        DevFlags.SNAPSHOT_INTERVAL.read(s),
        millis(DevFlags.INGEST_LINGER.read(s)),
        DevFlags.ASSET_ENCODING.given(s) ? s.choice(DevFlags.ASSET_ENCODING.name(), "best", "best", "fast") : null,
        startTimeout(s),
        kafkaBootstrap,
        kafkaConfig,
        given(s, MetricsAccess.TOKEN_FLAGS));
  }

  private static java.time.Duration startTimeout(Settings s) {
    java.time.Duration d = DevFlags.START_TIMEOUT.read(s);
    if (d.getSeconds() < 10) {
      throw new ConfigException("--start-timeout must be at least 10s: got " + d.toMillis() + "ms");
    }
    return d;
  }

  private static Path dataDir(Settings s) {
    Path d = DevFlags.DATA_DIR.read(s);
    return (d == null ? Path.of(".updraft") : d).toAbsolutePath().normalize();
  }

  private static String millis(java.time.Duration d) {
    return d == null ? null : d.toMillis() + "ms";
  }

  /** The flags of {@code names} given to {@code dev}, passed on as they are (and checked by their service). */
  private static Map<String, String> given(Settings s, Set<String> names) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String f : names) {
      if (s.has(f)) {
        out.put(f, s.raw(f));
      }
    }
    return Map.copyOf(out);
  }
}
