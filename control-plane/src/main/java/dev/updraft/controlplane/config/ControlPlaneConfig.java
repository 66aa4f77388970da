package dev.updraft.controlplane.config;

import static dev.updraft.controlplane.config.ControlPlaneFlags.ADMIN_TOKEN;
import static dev.updraft.controlplane.config.ControlPlaneFlags.BIND;
import static dev.updraft.controlplane.config.ControlPlaneFlags.COMMAND_WARMUP;
import static dev.updraft.controlplane.config.ControlPlaneFlags.CONTROL_PORT;
import static dev.updraft.controlplane.config.ControlPlaneFlags.DATA_DIR;
import static dev.updraft.controlplane.config.ControlPlaneFlags.EDGE_PUBLIC_URL;
import static dev.updraft.controlplane.config.ControlPlaneFlags.PUBLIC_URL;
import static dev.updraft.controlplane.config.ControlPlaneFlags.SNAPSHOT_INTERVAL;
import static dev.updraft.controlplane.config.ControlPlaneFlags.SNAPSHOT_INTERVAL_EVENTS;
import static dev.updraft.controlplane.config.ControlPlaneFlags.STORAGE;
import static dev.updraft.controlplane.config.ControlPlaneFlags.STORAGE_DIR;

import dev.updraft.common.PostgresTls;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.signin.OidcFlags;
import dev.updraft.controlplane.snapshots.SnapshotPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The control plane's typed configuration, read once from {@link Settings} (flags and {@code UPDRAFT_*}
 * environment variables) through the flags declared in {@link ControlPlaneFlags} (their meanings, defaults and
 * bounds are there, and in {@code updraft control-plane --help}) and validated at start. The concepts have records
 * of their own: {@link HttpFlags} (transport), {@link TopicFlags} (Kafka topics), {@link KeyFlags},
 * {@link LifecycleFlags}, {@link EdgeImageFlags}, {@link PatchFlags}, the storage back ends' {@link GcsFlags},
 * {@link S3Flags}, {@link AzureFlags}. Immutable and thread-safe.
 *
 * <p>Refused at start: {@code --public-url} equal to {@code --edge-public-url}, and with {@code --edge-public-url}
 * local storage on a wildcard {@code --bind} without {@code --public-url} (manifests would carry URLs devices and
 * edges cannot reach).
 */
public final class ControlPlaneConfig {

  /** The flags that choose and configure asset storage (the all-in-one {@code dev} command passes them on). */
  public static final Set<String> STORAGE_FLAGS =
      Set.of(
          "storage", "storage-dir", "gcs-bucket", "gcs-base-url", "gcs-signed-url-ttl", "gcs-credentials", "s3-bucket",
          "s3-endpoint", "s3-region", "s3-path-style", "s3-public-base-url", "s3-presign-ttl", "azure-account", "azure-container",
          "azure-endpoint", "azure-account-key", "azure-sas-token", "azure-public-base-url", "azure-sas-ttl");

  /** Every flag this configuration accepts (without the leading dashes): those of {@link ControlPlaneFlags#TABLE}. */
  public static final Set<String> FLAGS = ControlPlaneFlags.TABLE.names();

  /** Storage back ends. */
  public enum StorageKind {
    LOCAL,
    GCS,
    S3,
    AZURE
  }

  private final String kafkaBootstrap;
  private final KafkaClientConfig kafka;
  private final String topicPrefix;
  private final int controlPort;
  private final String bind;
  private final String publicUrl;
  private final String adminToken;
  private final Path dataDir;
  private final StorageKind storage;
  private final Path storageDir;
  private final GcsFlags gcs;
  private final MetricsAccess metrics;
  private final S3Flags s3;
  private final AzureFlags azure;
  private final LifecycleFlags lifecycle;
  private final EdgeImageFlags edgeImage;
  private final HttpFlags http;
  private final KeyFlags keys;
  private final TopicFlags topics;
  private final SnapshotPolicy snapshots;
  private final Duration commandWarmup;
  private final String postgresUrl;
  private final PostgresTls postgresTls;
  private final String edgePublicUrl;
  private final PatchFlags patches;
  private final OidcFlags oidc;

  private ControlPlaneConfig(Settings s) {
    kafkaBootstrap = s.string("kafka-bootstrap", "127.0.0.1:9092");
    kafka = KafkaClientConfig.from(s);
    topicPrefix = s.string("topic-prefix", "");
    controlPort = CONTROL_PORT.read(s);
    bind = BIND.read(s);
    String url = PUBLIC_URL.read(s);
    publicUrl = url == null ? null : checkUrl(PUBLIC_URL.name(), url);
    adminToken = s.required(ADMIN_TOKEN.name());
    if (adminToken.length() < 16) {
      throw new ConfigException(ADMIN_TOKEN.described() + " must be at least 16 characters: got " + adminToken.length());
    }
    Path data = DATA_DIR.read(s);
    dataDir = (data == null ? Path.of(".updraft") : data).toAbsolutePath().normalize();
    storage = StorageKind.valueOf(STORAGE.read(s).toUpperCase(Locale.ROOT));
    Path dir = STORAGE_DIR.read(s);
    storageDir = (dir == null ? dataDir.resolve("assets") : dir).toAbsolutePath().normalize();
    gcs = GcsFlags.from(s, storage == StorageKind.GCS, storage.name().toLowerCase(Locale.ROOT));
    metrics = MetricsAccess.from(s, true);
    s3 = S3Flags.from(s, storage == StorageKind.S3);
    azure = AzureFlags.from(s, storage == StorageKind.AZURE);
    lifecycle = LifecycleFlags.from(s);
    edgeImage = EdgeImageFlags.from(s);
    http = HttpFlags.from(s);
    keys = KeyFlags.from(s, dataDir);
    topics = TopicFlags.from(s, topicPrefix);
    snapshots = new SnapshotPolicy(SNAPSHOT_INTERVAL_EVENTS.read(s), SNAPSHOT_INTERVAL.read(s));
    commandWarmup = COMMAND_WARMUP.read(s);
    postgresUrl = s.string("postgres-url", "postgresql://postgres@127.0.0.1:5432/updraft");
    postgresTls = PostgresTls.from(s);
    String edge = EDGE_PUBLIC_URL.read(s);
    edgePublicUrl = edge == null ? null : checkUrl(EDGE_PUBLIC_URL.name(), edge);
    patches = PatchFlags.from(s);
    oidc = OidcFlags.from(s);
    checkReachable();
  }

  /**
   * Refuses what would bake asset URLs devices cannot use into signed manifests: {@code --public-url}
   * naming an edge (edges serve manifests and launch assets, not the other assets), and, with edges serving
   * launch assets, local storage on a wildcard bind without {@code --public-url} (the URLs would name 127.0.0.1).
   */
  private void checkReachable() {
    if (edgePublicUrl != null && edgePublicUrl.equals(publicUrl)) {
      throw new ConfigException(
          "--public-url (UPDRAFT_PUBLIC_URL) and --edge-public-url (UPDRAFT_EDGE_PUBLIC_URL) are both " + publicUrl
              + ": --public-url is where devices download assets from this control plane's storage (or your CDN), and edges do not"
              + " serve those; set --public-url to this control plane's (or the CDN's) public address, and --edge-public-url to the edges'");
    }
    boolean wildcard = "0.0.0.0".equals(bind) || "::".equals(bind) || "[::]".equals(bind);
    if (storage == StorageKind.LOCAL && publicUrl == null && wildcard && edgePublicUrl != null) {
      throw new ConfigException(
          "--storage local on --bind " + bind + " needs --public-url (UPDRAFT_PUBLIC_URL): without it asset URLs in manifests would be "
              + "http://127.0.0.1:" + (controlPort == 0 ? "<port>" : Integer.toString(controlPort))
              + "/assets/..., which devices, and the edges at " + edgePublicUrl + " that stream launch assets from there, cannot reach from"
              + " other machines; give the address they use for this control plane, such as https://updates.example.com, or --bind 127.0.0.1"
              + " for a machine-local setup");
    }
  }

  /** Reads and validates the configuration; rejects flags not in {@link ControlPlaneFlags#TABLE} by name. */
  public static ControlPlaneConfig from(Settings settings) {
    return from(settings, Set.of());
  }

  /**
   * Like {@link #from(Settings)}, also accepting {@code extraFlags} (flags of extensions mounted in the
   * same process, which read them from the same {@link Settings}).
   */
  public static ControlPlaneConfig from(Settings settings, Set<String> extraFlags) {
    ControlPlaneFlags.TABLE.rejectUnknown(settings, extraFlags);
    return new ControlPlaneConfig(settings);
  }

  static String checkUrl(String flag, String value) {
    return Settings.httpUrl(flag, value);
  }

  public String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  public KafkaClientConfig kafka() {
    return kafka;
  }

  public String topicPrefix() {
    return topicPrefix;
  }

  public int controlPort() {
    return controlPort;
  }

  public String bind() {
    return bind;
  }

  /** The configured public URL without a trailing slash, or null (derived from the bound port at start). */
  public String publicUrl() {
    return publicUrl;
  }

  public String adminToken() {
    return adminToken;
  }

  public Path dataDir() {
    return dataDir;
  }

  public StorageKind storage() {
    return storage;
  }

  public Path storageDir() {
    return storageDir;
  }

  /** The {@code --gcs-*} flags (meaningful with {@code --storage gcs}). */
  public GcsFlags gcs() {
    return gcs;
  }

  /** Who may read {@code /metrics} and on which port ({@code --metrics-token}, {@code --metrics-port}). */
  public MetricsAccess metrics() {
    return metrics;
  }

  /** The {@code --s3-*} flags (meaningful with {@code --storage s3}). */
  public S3Flags s3() {
    return s3;
  }

  public AzureFlags azure() {
    return azure;
  }

  /** Retention and asset-prune schedules. */
  public LifecycleFlags lifecycle() {
    return lifecycle;
  }

  /** Console sign-in with an OIDC provider ({@link OidcFlags#OFF} unless configured). */
  public OidcFlags oidc() {
    return oidc;
  }

  /** The edge image written to the asset storage ({@code --edge-image-*}). */
  public EdgeImageFlags edgeImage() {
    return edgeImage;
  }

  public HttpFlags http() {
    return http;
  }

  public KeyFlags keys() {
    return keys;
  }

  public Path keyStoreDir() {
    return keys.keyStoreDir();
  }

  /** Nullable; a copy. */
  public byte[] masterKey() {
    return keys.masterKey();
  }

  public long maxAssetBytes() {
    return http.maxAssetBytes();
  }

  public long maxRequestBytes() {
    return http.maxRequestBytes();
  }

  /** The writer's transactional id and the shape of the topics the control plane creates. */
  public TopicFlags topics() {
    return topics;
  }

  public String transactionalId() {
    return topics.transactionalId();
  }

  public int eventsPartitions() {
    return topics.eventsPartitions();
  }

  public int telemetryPartitions() {
    return topics.telemetryPartitions();
  }

  /** The command warm-up's budget ({@code --command-warmup}); zero: none. */
  public Duration commandWarmup() {
    return commandWarmup;
  }

  public SnapshotPolicy snapshots() {
    return snapshots;
  }

  public Duration telemetryRetention() {
    return topics.telemetryRetention();
  }

  /** {@code --replication-factor} of the topics the control plane creates; 0 when not given (min(3, brokers)). */
  public int replicationFactor() {
    return topics.replicationFactor();
  }

  /** {@code --min-insync-replicas} of the topics the control plane creates; 0 when not given (min(2, replication)). */
  public int minInsyncReplicas() {
    return topics.minInsyncReplicas();
  }

  public String postgresUrl() {
    return postgresUrl;
  }

  public PostgresTls postgresTls() {
    return postgresTls;
  }

  /** Invalid tokens one address may present per {@link #authFailureWindow()}; 0 when unlimited. */
  public int authFailureLimit() {
    return http.authFailureLimit();
  }

  public Duration authFailureWindow() {
    return http.authFailureWindow();
  }

  /** Nullable: the TLS certificate PEM (HTTPS on the control port when set, with {@link #tlsKey()}). */
  public Path tlsCert() {
    return http.tlsCert();
  }

  /** Nullable: the TLS private key PEM. */
  public Path tlsKey() {
    return http.tlsKey();
  }

  /** Whether the control port speaks HTTPS. */
  public boolean tls() {
    return http.tls();
  }

  /** The exact origins browsers may call the API from; empty: no CORS headers at all. */
  public List<String> corsOrigins() {
    return http.corsOrigins();
  }

  /**
   * Nullable: the public base URL of the edges (behind their load balancer). When set, every launch
   * asset's URL is {@code <edge-public-url>/apps/<app>/assets/<sha256>}, the edge route that answers
   * bundle patches and encodings, and patches are computed after each publish; otherwise launch assets
   * point at storage like every other asset.
   */
  public String edgePublicUrl() {
    return edgePublicUrl;
  }

  /** How many previous launch assets of a branch, runtime version and platform a new one is patched against (0: no patches). */
  public int patchBases() {
    return patches.bases();
  }

  /** How many of the fleet's most common current updates (from telemetry) are also patch bases. */
  public int patchFleetBases() {
    return patches.fleetBases();
  }

  /** Bundles above this size are not patched (bounded memory for the patch job). */
  public long patchMaxBundleBytes() {
    return patches.maxBundleBytes();
  }

  /** {@code --asset-encoding fast}: encoded copies at low levels (quick, larger); otherwise at the best levels. */
  public boolean fastEncoding() {
    return patches.fastEncoding();
  }

  @Override
  public String toString() {
    return "ControlPlaneConfig{kafkaBootstrap=" + kafkaBootstrap + ", kafkaConfig=" + kafka + ", topicPrefix=" + topicPrefix + ", controlPort="
        + controlPort + ", bind=" + bind + ", publicUrl=" + publicUrl + ", dataDir=" + dataDir + ", storage=" + storage
        + ", edgePublicUrl=" + edgePublicUrl + ", transactionalId=" + topics.transactionalId() + ", tls=" + (http.tls() ? http.tlsCert() : "off") + ", corsOrigins=" + http.corsOrigins() + ", " + metrics + ", adminToken=<redacted>, " + keys + ", " + oidc + "}";
  }
}
