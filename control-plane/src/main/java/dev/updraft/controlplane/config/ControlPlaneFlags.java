package dev.updraft.controlplane.config;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.common.SharedFlags;
import dev.updraft.controlplane.signin.OidcFlags;
import dev.updraft.controlplane.snapshots.SnapshotPolicy;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Every flag of {@code updraft control-plane}, declared once ({@link FlagTable}): {@link ControlPlaneConfig} and the
 * {@code *Flags} records beside it read their values through these constants; {@code --help} and the control
 * plane's table in docs/operations.md are made from {@link #TABLE}. Extensions mounted in the same process
 * declare their own (the insights routes: {@code InsightsExtension.TABLE}).
 */
public final class ControlPlaneFlags {
  private ControlPlaneFlags() {}

  private static final FlagTable.Builder T = FlagTable.builder().include(SharedFlags.kafka());

  // the HTTP server
  static final Flag<Integer> CONTROL_PORT = T.port("control-port", 8080, true, "The API's port (also the console and, without"
      + " `--metrics-port`, `/metrics`).");
  static final Flag<String> BIND = T.text("bind", "0.0.0.0", "Address the API listens on.");
  static final Flag<String> PUBLIC_URL = T.custom("public-url", "`http://127.0.0.1:<port>`", "absolute http(s) URL",
      "Base of the asset URLs written into manifests: where devices download assets from this control plane's storage (or your"
          + " CDN). Must not be `--edge-public-url`.");
  static final Flag<String> ADMIN_TOKEN = T.custom("admin-token", "required", "secret, at least 16 characters",
      "The bootstrap admin token (give it as `UPDRAFT_ADMIN_TOKEN`: a flag shows in `ps`).");
  static final Flag<Path> TLS_CERT = T.path("tls-cert", "none (plain HTTP)", "PEM certificate file (the server certificate,"
      + " optionally followed by its chain). Give it with `--tls-key`, or neither. With both, the control port speaks **HTTPS only**"
      + " (plain HTTP on that port gets no answer) and the default `--public-url` starts with `https://`.");
  static final Flag<Path> TLS_KEY = T.path("tls-key", "none", "PEM private key of that certificate, unencrypted (PKCS#1, SEC1 or"
      + " PKCS#8). Start fails if either file is missing, not a regular file, unreadable, not PEM, or the key does not belong to the"
      + " certificate. The files are read once at start: restart to rotate.");
  static final Flag<String> CORS_ORIGIN = T.custom("cors-origin", "none", "comma-separated origins", "Exact origins"
      + " (`https://console.example.com,http://127.0.0.1:19006`) browsers may call the API from; only a listed `Origin` is echoed."
      + " Without it no response carries an `Access-Control-*` header. See [Control plane transport](#control-plane-transport-tls-cors-and-request-limits).");
  static final Flag<Long> MAX_REQUEST_BYTES = T.bytes("max-request-bytes", 8L * 1024 * 1024, 64 * 1024, 256L * 1024 * 1024,
      "Largest JSON body on any route; 413 `too-large` beyond.");
  static final Flag<Long> MAX_ASSET_BYTES = T.bytes("max-asset-bytes", 100L * 1024 * 1024, 1024, 8L * 1024 * 1024 * 1024,
      "Largest asset upload (`PUT /v1/apps/{app}/assets/{sha256}`, streamed to disk); 413 `too-large` beyond.");
  static final Flag<Integer> AUTH_FAILURE_LIMIT = T.integer("auth-failure-limit", 20, 0, 1_000_000, "tokens, 0 = off",
      "Invalid, revoked or malformed tokens one address may present per `--auth-failure-window`; after that its requests that carry"
          + " a token get 429 `too-many-auth-failures` until its window ends.");
  static final Flag<Duration> AUTH_FAILURE_WINDOW = T.duration("auth-failure-window", Duration.ofMinutes(1), Duration.ofSeconds(1),
      Duration.ofDays(1), "The window of `--auth-failure-limit`, counted from an address's first failure.");
  static final Flag<Duration> HEADER_TIMEOUT = T.duration("header-timeout", Duration.ofSeconds(10), Duration.ofMillis(100),
      Duration.ofMinutes(5), "Longest a client may take to send a request head; then 408 `request-timeout` and the connection is closed.");
  static final Flag<Duration> IDLE_TIMEOUT = T.duration("idle-timeout", Duration.ofMinutes(3), Duration.ofSeconds(1), Duration.ofHours(1),
      "A connection over which no byte moves either way for this long is closed. Keep it above the producer's 2-minute delivery"
          + " timeout (a shorter one cuts the client off from a publish that may still commit).");

  // data and keys
  static final Flag<Path> DATA_DIR = T.path("data-dir", "`./.updraft`", "Where the control plane keeps its files (keys, local assets).");
  static final Flag<Path> KEY_STORE_DIR = T.path("key-store-dir", "`<data-dir>/keys`", "Where each app's private signing keys are kept.");
  static final Flag<String> MASTER_KEY = T.custom("master-key", "none", "base64 of 32 bytes", "Every private signing key is sealed"
      + " with it (AES-256-GCM) before it is written (`openssl rand -base64 32`; give it as `UPDRAFT_MASTER_KEY`). Without it keys are"
      + " refused (409 `master-key-required`) unless `--allow-plaintext-keys`.");
  static final Flag<Boolean> ALLOW_PLAINTEXT_KEYS = T.bool("allow-plaintext-keys", false, "Without a master key, store private keys in"
      + " clear (a test bench only); every start warns. Refused together with `--master-key`.");
  static final Flag<Integer> KEY_IN_USE_DAYS = T.integer("key-in-use-days", 30, 1, 3650, "days", "A key devices asked for within this"
      + " many days is not retired unless the request says force (409 `key-in-use`).");

  // asset storage
  static final Flag<String> STORAGE = T.choice("storage", "local", "Where assets are stored.", "local", "gcs", "s3", "azure");
  static final Flag<Path> STORAGE_DIR = T.path("storage-dir", "`<data-dir>/assets`", "With `--storage local`: the assets' directory.");
  static final Flag<String> GCS_BUCKET = T.custom("gcs-bucket", "none", "bucket name", "With `--storage gcs` (required): the bucket.");
  static final Flag<String> GCS_BASE_URL = T.custom("gcs-base-url", "none", "absolute http(s) URL", "A public or CDN base in front of"
      + " the bucket; without it manifests carry V4 signed URLs.");
  static final Flag<Duration> GCS_SIGNED_URL_TTL = T.duration("gcs-signed-url-ttl", Duration.ofDays(7), Duration.ofHours(1),
      Duration.ofDays(7), "How long V4 signed URLs are valid (the V4 maximum is 7d).");
  static final Flag<Path> GCS_CREDENTIALS = T.path("gcs-credentials", "application default", "A service account key file.");
  static final Flag<String> S3_BUCKET = T.custom("s3-bucket", "none", "bucket name", "With `--storage s3` (required): the bucket; a"
      + " `HEAD` of it at start. Credentials only from the AWS default provider chain. See [S3 storage](#s3-storage).");
  static final Flag<String> S3_ENDPOINT = T.custom("s3-endpoint", "AWS", "absolute http(s) URL, no path", "The endpoint of an"
      + " S3-compatible store (R2, MinIO, Ceph, Spaces, Supabase).");
  static final Flag<String> S3_REGION = T.custom("s3-region", "the AWS default region chain, else `us-east-1`", "region name",
      "`auto` for R2.");
  static final Flag<Boolean> S3_PATH_STYLE = T.bool("s3-path-style", false, "`http://host/bucket/key` instead of `http://bucket.host/key`.");
  static final Flag<String> S3_PUBLIC_BASE_URL = T.custom("s3-public-base-url", "none", "absolute http(s) URL", "A CDN or public bucket"
      + " in front: manifests carry `<base>/assets/<app>/<sha256>`; without it presigned URLs.");
  static final Flag<Duration> S3_PRESIGN_TTL = T.duration("s3-presign-ttl", S3Flags.MAX_PRESIGN_TTL, Duration.ofSeconds(10),
      S3Flags.MAX_PRESIGN_TTL, "Without a base URL: SigV4 presigned URLs valid this long, renewed past half of it.");
  static final Flag<String> AZURE_ACCOUNT = T.custom("azure-account", "none", "account name", "With `--storage azure` (required): the"
      + " storage account. See [Azure Blob Storage](#azure-blob-storage).");
  static final Flag<String> AZURE_CONTAINER = T.custom("azure-container", "none", "container name", "With `--storage azure`"
      + " (required): the container (private); listed once at start.");
  static final Flag<String> AZURE_ENDPOINT = T.custom("azure-endpoint", "`https://<account>.blob.core.windows.net`",
      "absolute http(s) URL", "The account's blob service URL (Azurite, a sovereign cloud, a private endpoint).");
  static final Flag<String> AZURE_ACCOUNT_KEY = T.custom("azure-account-key", "none", "secret", "The shared key (give it as"
      + " `UPDRAFT_AZURE_ACCOUNT_KEY`; a flag shows in `ps`).");
  static final Flag<String> AZURE_SAS_TOKEN = T.custom("azure-sas-token", "none", "secret", "Instead of the key: a container SAS"
      + " (give it as `UPDRAFT_AZURE_SAS_TOKEN`); needs `--azure-public-base-url`.");
  static final Flag<String> AZURE_PUBLIC_BASE_URL = T.custom("azure-public-base-url", "none", "absolute http(s) URL", "A CDN or public"
      + " container in front: manifests carry `<base>/assets/<app>/<sha256>`; without it SAS URLs.");
  static final Flag<Duration> AZURE_SAS_TTL = T.duration("azure-sas-ttl", AzureFlags.MAX_SAS_TTL, Duration.ofSeconds(10),
      AzureFlags.MAX_SAS_TTL, "With the key and no base URL: SAS URLs valid this long, renewed past half of it.");
  static final Flag<Duration> RETENTION_INTERVAL = T.duration("retention-interval", Duration.ofHours(1), Duration.ofSeconds(1), null,
      "How often every app's retention policies are applied (also right after each publish).");
  static final Flag<Duration> ASSET_PRUNE_INTERVAL = T.duration("asset-prune-interval", null, Duration.ofMinutes(1), null,
      "How often every app's unreferenced assets are pruned; none: never on its own.");
  static final Flag<Duration> ASSET_PRUNE_GRACE = T.duration("asset-prune-grace", Duration.ofDays(7), Duration.ofHours(1), null,
      "How long an unreferenced object is kept after it was stored (a publish may still use an upload).");

  // the event log
  static final Flag<String> TRANSACTIONAL_ID = T.custom("transactional-id", "`<topic-prefix>updraft-control-plane`", "text",
      "The writer's Kafka transactional id: a second instance with the same id fences the first.");
  static final Flag<Integer> EVENTS_PARTITIONS = T.integer("events-partitions", 3, 1, 1000, "partitions",
      "Partitions of `updraft.events` when the control plane creates it.");
  static final Flag<Integer> TELEMETRY_PARTITIONS = T.integer("telemetry-partitions", 4, 1, 1000, "partitions",
      "Partitions of `updraft.telemetry` when the control plane creates it (the most ingesters that share the work).");
  static final Flag<Duration> TELEMETRY_RETENTION = T.duration("telemetry-retention", Duration.ofDays(3), Duration.ofMinutes(1), null,
      "Retention of `updraft.telemetry` (check-ins waiting for an ingester).");
  static final Flag<String> REPLICATION_FACTOR = T.custom("replication-factor", "3 on a cluster of three or more brokers, else the"
      + " broker count", "replicas (1–32767)", "Replication factor of the topics the control plane creates.");
  static final Flag<String> MIN_INSYNC_REPLICAS = T.custom("min-insync-replicas", "min(2, replication factor)", "replicas (1–32767)",
      "`min.insync.replicas` of the topics the control plane creates; at most the replication factor.");
  static final Flag<Integer> SNAPSHOT_INTERVAL_EVENTS = T.integer("snapshot-interval-events", SnapshotPolicy.DEFAULT.everyEvents(), 0,
      100_000_000, "events, 0 = off", "A snapshot of the state is written after this many events. See"
          + " [Snapshots](#snapshots-and-what-state-grows-with).");
  static final Flag<Duration> SNAPSHOT_INTERVAL = T.duration("snapshot-interval", SnapshotPolicy.DEFAULT.every(), null, null,
      "... or after this long with at least one event.");
  static final Flag<Duration> COMMAND_WARMUP = T.duration("command-warmup", Duration.ofSeconds(3), Duration.ZERO, Duration.ofMinutes(1),
      "Before it listens, the control plane renders, signs and encodes made-up publishes with a throwaway key (nothing is"
          + " written) until that stops getting faster, for at most this long, so the first publish after a start is not the slow"
          + " one; `0s` skips it.");
  static final Flag<String> EDGE_IMAGE_KEY = T.custom("edge-image-key", "none (off)", "base64 of 32 bytes", "Write the edge image to"
      + " the asset storage, encrypted and authenticated with this key (also given to the edges), for edges that start without Kafka.");
  static final Flag<Duration> EDGE_IMAGE_INTERVAL = T.duration("edge-image-interval", Duration.ofMinutes(1), Duration.ofSeconds(1), null,
      "How often a changed log is written as a new image (an unchanged one every ten intervals).");
  static final Flag<Integer> EDGE_IMAGE_KEEP = T.integer("edge-image-keep", 3, 2, 100, "images", "Images kept in the storage, the"
      + " newest included; older ones are deleted.");

  // edges, patches and encodings
  static final Flag<String> EDGE_PUBLIC_URL = T.custom("edge-public-url", "none", "absolute http(s) URL", "The edges' public base URL;"
      + " launch assets then point at the edges' asset route (bundle patches, encodings). See"
      + " [Bundle patches and encodings](#bundle-patches-and-encodings).");
  static final Flag<Integer> PATCH_BASES = T.integer("patch-bases", 5, 0, 50, "launch assets", "How many previous launch assets of a"
      + " branch, runtime version and platform a new one is patched against (0: no patches).");
  static final Flag<Integer> PATCH_FLEET_BASES = T.integer("patch-fleet-bases", 3, 0, 50, "updates", "How many of the fleet's most"
      + " common current updates (from telemetry) are also patch bases.");
  static final Flag<Long> PATCH_MAX_BUNDLE_BYTES = T.bytes("patch-max-bundle-bytes", 32L * 1024 * 1024, 1024, 256L * 1024 * 1024,
      "Bundles above this size are not patched (bounded memory for the patch job).");
  static final Flag<String> ASSET_ENCODING = T.choice("asset-encoding", "best", "How a publish makes its zstd, br and gzip copies: at"
      + " the best levels, or `fast` at low levels (quick, somewhat larger).", "best", "fast");

  static {
    T.include(SharedFlags.postgres());
    T.include(SharedFlags.metrics("none: on the control port", "port (0 = any free port)", "`/metrics` moves to a plain-HTTP listener of its own on `--bind`,"
        + " which serves `GET /metrics` only; the control port then answers 404 on `/metrics`."));
    T.include(OidcFlags.TABLE);
  }

  /** Every flag of the control plane, in the order {@code --help} and the docs show them. */
  public static final FlagTable TABLE = T.build();
}
