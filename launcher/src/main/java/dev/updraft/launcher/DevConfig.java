package dev.updraft.launcher;

import dev.updraft.common.ConfigException;
import dev.updraft.common.KafkaClientConfig;
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
    String kafkaConfig) {

  static final Set<String> FLAGS = flags();

  private static Set<String> flags() {
    Set<String> f =
        new HashSet<>(
            Set.of("help", "data-dir", "control-port", "edge-port", "public-url", "admin-token", "kafka-port", "postgres-port", "bind", "guard-interval",
                "edge-public-url", "snapshot-interval-events", "snapshot-interval", "ingest-linger", "asset-encoding", "start-timeout",
                "kafka-bootstrap", KafkaClientConfig.FLAG));
    f.addAll(ControlPlaneConfig.STORAGE_FLAGS);
    return Set.copyOf(f);
  }

  static DevConfig from(Settings s) {
    s.rejectUnknown(FLAGS);
    if (!s.positional().isEmpty()) {
      throw new ConfigException("dev takes no arguments, only flags: got " + s.positional());
    }
    int controlPort = s.port("control-port", 8080, false);
    int edgePort = s.port("edge-port", 3000, false);
    if (controlPort == edgePort) {
      throw new ConfigException("--control-port and --edge-port must differ: both are " + controlPort);
    }
    String publicUrl = s.string("public-url", "http://127.0.0.1:" + controlPort);
    if (!publicUrl.startsWith("http://") && !publicUrl.startsWith("https://")) {
      throw new ConfigException("--public-url (UPDRAFT_PUBLIC_URL) must start with http:// or https://: got '" + publicUrl + "'");
    }
    if (publicUrl.endsWith("/")) {
      publicUrl = publicUrl.substring(0, publicUrl.length() - 1);
    }
    String edgeUrl = s.raw("edge-public-url");
    if (edgeUrl == null) {
      java.net.URI u = java.net.URI.create(publicUrl);
      edgeUrl = u.getScheme() + "://" + u.getHost() + ":" + edgePort;
    } else if (edgeUrl.endsWith("/")) {
      edgeUrl = edgeUrl.substring(0, edgeUrl.length() - 1);
    }
    String kafkaBootstrap = s.raw("kafka-bootstrap");
    String kafkaConfig = s.raw(KafkaClientConfig.FLAG);
    if (kafkaConfig != null && kafkaBootstrap == null) {
      throw new ConfigException("--kafka-config (UPDRAFT_KAFKA_CONFIG) needs --kafka-bootstrap: the embedded broker takes plaintext,"
          + " anonymous clients; give the external cluster's --kafka-bootstrap with its --kafka-config");
    }
    if (kafkaBootstrap != null && s.has("kafka-port")) {
      throw new ConfigException("--kafka-port is the embedded broker's; with --kafka-bootstrap " + kafkaBootstrap + " none is started");
    }
    return new DevConfig(
        s.path("data-dir", Path.of(".updraft")).toAbsolutePath().normalize(),
        controlPort,
        edgePort,
        publicUrl,
        s.raw("admin-token"),
        s.port("kafka-port", 0, true),
        s.port("postgres-port", 0, true),
        s.string("bind", "127.0.0.1"),
        s.has("guard-interval") ? s.duration("guard-interval", null).toMillis() + "ms" : null,
        edgeUrl,
        storage(s),
        s.raw("snapshot-interval-events"),
        s.raw("snapshot-interval"),
        s.has("ingest-linger") ? s.duration("ingest-linger", null).toMillis() + "ms" : null,
        s.has("asset-encoding") ? s.choice("asset-encoding", "best", "best", "fast") : null,
        startTimeout(s),
        kafkaBootstrap,
        kafkaConfig);
  }

  private static java.time.Duration startTimeout(Settings s) {
    java.time.Duration d = s.duration("start-timeout", java.time.Duration.ofMinutes(10));
    if (d.getSeconds() < 10) {
      throw new ConfigException("--start-timeout must be at least 10s: got " + d.toMillis() + "ms");
    }
    return d;
  }

  private static Map<String, String> storage(Settings s) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String f : ControlPlaneConfig.STORAGE_FLAGS) {
      if (s.has(f)) {
        out.put(f, s.raw(f));
      }
    }
    return Map.copyOf(out);
  }
}
