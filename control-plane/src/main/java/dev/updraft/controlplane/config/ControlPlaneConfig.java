package dev.updraft.controlplane.config;

import dev.updraft.common.PostgresTls;
import dev.updraft.common.KafkaClientConfig;
import dev.updraft.common.ConfigException;
import dev.updraft.common.MetricsAccess;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.signin.OidcFlags;
import dev.updraft.controlplane.snapshots.SnapshotPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The control plane's typed configuration, read once from {@link Settings} (flags and {@code UPDRAFT_*}
 * environment variables) and validated at start. Immutable and thread-safe.
 *
 * <p>Flags (see {@link #FLAGS}); defaults in brackets:
 *
 * <ul>
 *   <li>{@code --kafka-bootstrap} [127.0.0.1:9092], {@code --topic-prefix} [empty]
 *   <li>{@code --kafka-config FILE} [none]: Kafka client properties (TLS, SASL, ...) for every producer, consumer and
 *       admin client ({@link KafkaClientConfig}); keys the guarantees rest on are refused at start
 *   <li>{@code --control-port} [8080; 0 = any free port], {@code --bind} [0.0.0.0]
 *   <li>{@code --public-url} [http://127.0.0.1:&lt;port&gt;]: base of asset URLs written into manifests
 *   <li>{@code --admin-token} (required, at least 16 characters): the bootstrap admin token
 *   <li>{@code --data-dir} [./.updraft]; {@code --key-store-dir}, {@code --master-key}, {@code --allow-plaintext-keys}:
 *       {@link KeyFlags}
 *   <li>{@code --storage} local|gcs|s3|azure [local] ({@code --azure-*}: {@link AzureFlags}); {@code --storage-dir} [&lt;data-dir&gt;/assets];
 *       {@code --gcs-bucket}; {@code --gcs-base-url} (public/CDN base; without it V4 signed URLs are used);
 *       {@code --gcs-signed-url-ttl} [7d, 1h..7d]; {@code --gcs-credentials} [application default]
 *   <li>with {@code --storage s3}: {@code --s3-bucket} (required); {@code --s3-endpoint} [AWS] for S3-compatible
 *       stores (R2, MinIO, Ceph, Spaces, Supabase); {@code --s3-region} [the AWS default region chain, else
 *       us-east-1]; {@code --s3-path-style} [false]; {@code --s3-public-base-url} (public/CDN base; without it
 *       presigned URLs are used); {@code --s3-presign-ttl} [7d, 10s..7d]. Credentials only from the AWS default
 *       provider chain (never a flag)
 *   <li>{@code --max-asset-bytes} [104857600], {@code --max-request-bytes} [8388608]
 *   <li>{@code --transactional-id} [&lt;topic-prefix&gt;updraft-control-plane]
 *   <li>{@code --events-partitions} [3], {@code --telemetry-partitions} [4], {@code --telemetry-retention} [3d]
 *   <li>{@code --replication-factor} [3 on a cluster of three or more brokers, else the broker count] and
 *       {@code --min-insync-replicas} [min(2, replication factor)]: of the topics the control plane creates
 *   <li>{@code --postgres-url}: read by the insights routes mounted in the same process; TLS to it: {@link PostgresTls}
 *   <li>{@code --auth-failure-limit} [20; 0 = off] invalid tokens one address may present per
 *       {@code --auth-failure-window} [1m] before its requests are refused with 429 until the window ends
 *   <li>{@code --tls-cert} and {@code --tls-key} [none: plain HTTP]: PEM certificate (and chain) and its
 *       unencrypted key, both or neither; then HTTPS only; checked at start (readable, parses, key matches)
 *   <li>{@code --cors-origin} [none: no CORS headers]: comma-separated exact origins browsers may call the
 *       API from; only a listed {@code Origin} is echoed
 *   <li>{@code --edge-public-url} [none]: the edges' public base URL; launch assets then point at the edges'
 *       asset route (bundle patches, encodings); {@code --patch-bases} [5], {@code --patch-fleet-bases} [3],
 *       {@code --patch-max-bundle-bytes} [33554432]: what the patch job diffs against and how large a bundle it takes
 *   <li>{@code --snapshot-interval-events} [1000; 0 = off], {@code --snapshot-interval} [10m]: {@link SnapshotPolicy}
 *   <li>{@code --oidc-issuer}, {@code --oidc-client-id}, {@code --oidc-roles}, ...: console sign-in, {@link OidcFlags}
 *   <li>{@code --edge-image-key} [none: off], {@code --edge-image-interval} [1m], {@code --edge-image-keep} [3]: {@link EdgeImageFlags}
 *   <li>{@code --metrics-token} or {@code --metrics-token-file} [none: public], {@code --metrics-port} [none: the control port]: {@link MetricsAccess}
 * </ul>
 *
 * <p>Refused at start: {@code --public-url} equal to {@code --edge-public-url}, and with {@code --edge-public-url}
 * local storage on a wildcard {@code --bind} without {@code --public-url} (manifests would carry URLs devices and
 * edges cannot reach).
 *
 * <p>Request heads are bounded by {@link HttpFlags#MAX_HEADER_BYTES} (431 beyond), request lines by
 * {@link HttpFlags#MAX_REQUEST_LINE_BYTES} (414 beyond), their time by {@link HttpFlags}; JSON bodies by
 * {@code --max-request-bytes} and asset uploads by {@code --max-asset-bytes} (413 beyond).
 */
public final class ControlPlaneConfig {

  /** The flags that choose and configure asset storage (the all-in-one {@code dev} command passes them on). */
  public static final Set<String> STORAGE_FLAGS =
      Set.of(
          "storage", "storage-dir", "gcs-bucket", "gcs-base-url", "gcs-signed-url-ttl", "gcs-credentials", "s3-bucket",
          "s3-endpoint", "s3-region", "s3-path-style", "s3-public-base-url", "s3-presign-ttl", "azure-account", "azure-container",
          "azure-endpoint", "azure-account-key", "azure-sas-token", "azure-public-base-url", "azure-sas-ttl");

  /** Every flag this configuration accepts (without the leading dashes). */
  public static final Set<String> FLAGS =
      Settings.union(
          Settings.union(Settings.union(Settings.union(Settings.union(Settings.union(Settings.union(STORAGE_FLAGS,
              EdgeImageFlags.NAMES.toArray(new String[0])), LifecycleFlags.NAMES.toArray(new String[0])),
              HttpFlags.NAMES.toArray(new String[0])), KeyFlags.NAMES.toArray(new String[0])), PostgresTls.FLAGS.toArray(new String[0])),
              Settings.union(MetricsAccess.FLAGS, OidcFlags.NAMES.toArray(new String[0])).toArray(new String[0])),
          "kafka-bootstrap", KafkaClientConfig.FLAG, "topic-prefix", "control-port", "bind", "public-url", "admin-token", "data-dir",
          "max-asset-bytes", "max-request-bytes", "transactional-id",
          "events-partitions", "telemetry-partitions", "telemetry-retention", "replication-factor", "min-insync-replicas",
          "postgres-url", "auth-failure-limit", "auth-failure-window", "tls-cert", "tls-key", "cors-origin",
          "edge-public-url", "patch-bases", "patch-fleet-bases", "patch-max-bundle-bytes", "asset-encoding", "snapshot-interval-events",
          "snapshot-interval");

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
  private final long maxAssetBytes;
  private final long maxRequestBytes;
  private final String transactionalId;
  private final int eventsPartitions;
  private final int telemetryPartitions;
  private final Duration telemetryRetention;
  private final SnapshotPolicy snapshots;
  private final int replicationFactor;
  private final int minInsyncReplicas;
  private final String postgresUrl;
  private final PostgresTls postgresTls;
  private final int authFailureLimit;
  private final Duration authFailureWindow;
  private final Path tlsCert;
  private final Path tlsKey;
  private final List<String> corsOrigins;
  private final String edgePublicUrl;
  private final PatchFlags patches;
  private final OidcFlags oidc;

  private ControlPlaneConfig(Settings s) {
    kafkaBootstrap = s.string("kafka-bootstrap", "127.0.0.1:9092");
    kafka = KafkaClientConfig.from(s);
    topicPrefix = s.string("topic-prefix", "");
    controlPort = s.port("control-port", 8080, true);
    bind = s.string("bind", "0.0.0.0");
    String url = s.raw("public-url");
    publicUrl = url == null ? null : checkUrl("public-url", url);
    adminToken = s.required("admin-token");
    if (adminToken.length() < 16) {
      throw new ConfigException(
          "--admin-token (UPDRAFT_ADMIN_TOKEN) must be at least 16 characters: got " + adminToken.length());
    }
    dataDir = s.path("data-dir", Path.of(".updraft")).toAbsolutePath().normalize();
    storage =
        StorageKind.valueOf(s.choice("storage", "local", "local", "gcs", "s3", "azure").toUpperCase(Locale.ROOT));
    storageDir = s.path("storage-dir", dataDir.resolve("assets")).toAbsolutePath().normalize();
    gcs = GcsFlags.from(s, storage == StorageKind.GCS, storage.name().toLowerCase(Locale.ROOT));
    metrics = MetricsAccess.from(s, true);
    s3 = S3Flags.from(s, storage == StorageKind.S3);
    azure = AzureFlags.from(s, storage == StorageKind.AZURE);
    lifecycle = LifecycleFlags.from(s);
    edgeImage = EdgeImageFlags.from(s);
    http = HttpFlags.from(s);
    keys = KeyFlags.from(s, dataDir);
    maxAssetBytes = s.longValue("max-asset-bytes", 100L * 1024 * 1024, 1024, 8L * 1024 * 1024 * 1024);
    maxRequestBytes = s.longValue("max-request-bytes", 8L * 1024 * 1024, 64 * 1024, 256L * 1024 * 1024);
    transactionalId = s.string("transactional-id", topicPrefix + "updraft-control-plane");
    eventsPartitions = s.integer("events-partitions", 3, 1, 1000);
    telemetryPartitions = s.integer("telemetry-partitions", 4, 1, 1000);
    snapshots = SnapshotPolicy.from(s);
    telemetryRetention = s.duration("telemetry-retention", Duration.ofDays(3));
    if (telemetryRetention.compareTo(Duration.ofMinutes(1)) < 0) {
      throw new ConfigException("--telemetry-retention (UPDRAFT_TELEMETRY_RETENTION) must be at least 1m");
    }
    // unset (0 here): chosen from the cluster's size when the topics are created (TopicSetup)
    replicationFactor = s.has("replication-factor") ? s.integer("replication-factor", 0, 1, Short.MAX_VALUE) : 0;
    minInsyncReplicas = s.has("min-insync-replicas") ? s.integer("min-insync-replicas", 0, 1, Short.MAX_VALUE) : 0;
    if (replicationFactor > 0 && minInsyncReplicas > replicationFactor) {
      throw new ConfigException(
          "--min-insync-replicas (UPDRAFT_MIN_INSYNC_REPLICAS) must not exceed --replication-factor: got " + minInsyncReplicas
              + " > " + replicationFactor + " (every acks=all write would be refused)");
    }
    postgresUrl = s.string("postgres-url", "postgresql://postgres@127.0.0.1:5432/updraft");
    postgresTls = PostgresTls.from(s);
    authFailureLimit = s.integer("auth-failure-limit", 20, 0, 1_000_000);
    authFailureWindow = s.duration("auth-failure-window", Duration.ofMinutes(1));
    if (authFailureWindow.compareTo(Duration.ofSeconds(1)) < 0 || authFailureWindow.compareTo(Duration.ofDays(1)) > 0) {
      throw new ConfigException(
          "--auth-failure-window (UPDRAFT_AUTH_FAILURE_WINDOW) must be between 1s and 1d: got " + authFailureWindow);
    }
    Path cert = s.path("tls-cert", null);
    Path key = s.path("tls-key", null);
    if ((cert == null) != (key == null)) {
      throw new ConfigException(
          "--tls-cert (UPDRAFT_TLS_CERT) and --tls-key (UPDRAFT_TLS_KEY) go together: give both PEM files for HTTPS, or neither for plain HTTP (only "
              + (cert == null ? "--tls-key" : "--tls-cert") + " was given)");
    }
    tlsCert = cert == null ? null : cert.toAbsolutePath().normalize();
    tlsKey = key == null ? null : key.toAbsolutePath().normalize();
    if (tlsCert != null) {
      TlsFiles.load(tlsCert, tlsKey); // fails with a ConfigException naming the file and the problem
    }
    corsOrigins = CorsOrigins.parse(s.raw("cors-origin"));
    String edge = s.raw("edge-public-url");
    edgePublicUrl = edge == null ? null : checkUrl("edge-public-url", edge);
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

  /** Reads and validates the configuration; rejects flags not in {@link #FLAGS} by name. */
  public static ControlPlaneConfig from(Settings settings) {
    return from(settings, Set.of());
  }

  /**
   * Like {@link #from(Settings)}, also accepting {@code extraFlags} (flags of extensions mounted in the
   * same process, which read them from the same {@link Settings}).
   */
  public static ControlPlaneConfig from(Settings settings, Set<String> extraFlags) {
    Set<String> known = new HashSet<>(FLAGS);
    known.addAll(extraFlags);
    settings.rejectUnknown(known);
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
    return maxAssetBytes;
  }

  public long maxRequestBytes() {
    return maxRequestBytes;
  }

  public String transactionalId() {
    return transactionalId;
  }

  public int eventsPartitions() {
    return eventsPartitions;
  }

  public int telemetryPartitions() {
    return telemetryPartitions;
  }

  public SnapshotPolicy snapshots() {
    return snapshots;
  }

  public Duration telemetryRetention() {
    return telemetryRetention;
  }

  /** {@code --replication-factor} of the topics the control plane creates; 0 when not given (min(3, brokers)). */
  public int replicationFactor() {
    return replicationFactor;
  }

  /** {@code --min-insync-replicas} of the topics the control plane creates; 0 when not given (min(2, replication)). */
  public int minInsyncReplicas() {
    return minInsyncReplicas;
  }

  public String postgresUrl() {
    return postgresUrl;
  }

  public PostgresTls postgresTls() {
    return postgresTls;
  }

  /** Invalid tokens one address may present per {@link #authFailureWindow()}; 0 when unlimited. */
  public int authFailureLimit() {
    return authFailureLimit;
  }

  public Duration authFailureWindow() {
    return authFailureWindow;
  }

  /** Nullable: the TLS certificate PEM (HTTPS on the control port when set, with {@link #tlsKey()}). */
  public Path tlsCert() {
    return tlsCert;
  }

  /** Nullable: the TLS private key PEM. */
  public Path tlsKey() {
    return tlsKey;
  }

  /** Whether the control port speaks HTTPS. */
  public boolean tls() {
    return tlsCert != null;
  }

  /** The exact origins browsers may call the API from; empty: no CORS headers at all. */
  public List<String> corsOrigins() {
    return corsOrigins;
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
        + ", edgePublicUrl=" + edgePublicUrl + ", transactionalId=" + transactionalId + ", tls=" + (tlsCert == null ? "off" : tlsCert) + ", corsOrigins=" + corsOrigins + ", " + metrics + ", adminToken=<redacted>, " + keys + ", " + oidc + "}";
  }
}
