package dev.updraft.load.check;

/**
 * Every way a request can fail, with its stable name in the result files. Documented in
 * {@code load/README.md} ("Errors").
 */
public enum ErrorKind {
  /** The TCP connection could not be made (refused, unreachable). */
  CONNECT("connect"),
  /** No complete response within {@code --timeout}. */
  TIMEOUT("timeout"),
  /** The connection closed or reset mid-request, or another transport failure. */
  IO("io"),
  STATUS_4XX("status_4xx"),
  STATUS_5XX("status_5xx"),
  /** A 1xx/3xx, or a 2xx other than 200 and 204. */
  STATUS_OTHER("status_other"),
  /** {@code expo-protocol-version} missing or not 1 on the response. */
  PROTOCOL_HEADER("protocol_header"),
  /** A manifest response that a shared cache or the device could keep ({@code public} or max-age > 0). */
  CACHE_CONTROL("cache_control"),
  /** Neither multipart/mixed nor a JSON manifest. */
  CONTENT_TYPE("content_type"),
  /** The multipart body does not parse strictly (protocol.md §2 iOS framing). */
  MULTIPART("multipart_malformed"),
  /** Both a manifest and a directive part. */
  MANIFEST_AND_DIRECTIVE("manifest_and_directive"),
  /** The manifest JSON is not valid (id, createdAt, runtimeVersion, launchAsset, assets). */
  MANIFEST_INVALID("manifest_invalid"),
  /** The directive JSON is malformed, or a rollback without a string commitTime. */
  DIRECTIVE_INVALID("directive_invalid"),
  /** A directive type other than noUpdateAvailable and rollBackToEmbedded. */
  UNKNOWN_DIRECTIVE("unknown_directive"),
  /** A signature was requested and the manifest or directive part has no {@code expo-signature}. */
  SIGNATURE_MISSING("signature_missing"),
  /** {@code expo-signature} present but not {@code sig="<base64>"...}. */
  SIGNATURE_MALFORMED("signature_malformed"),
  /** The signature does not verify with the configured certificate. */
  SIGNATURE_INVALID("signature_invalid"),
  /** The manifest's runtimeVersion differs from the request's. */
  RUNTIME_MISMATCH("runtime_mismatch"),
  /** A manifest other than the one expected for the device's (platform, runtime, channel), and not newer. */
  WRONG_UPDATE("wrong_update"),
  /** "No update" while the device runs an older update than the expected one (after the grace). */
  MISSED_UPDATE("missed_update"),
  /** A manifest of the very update the device says it runs (protocol 1 answers noUpdateAvailable). */
  REDUNDANT_MANIFEST("redundant_manifest"),
  /** The launch asset download answered other than 200. */
  ASSET_STATUS("asset_status"),
  /** The launch asset's base64url SHA-256 differs from the manifest's {@code hash}. */
  ASSET_HASH("asset_hash"),
  /** The launch asset download failed at the transport level. */
  ASSET_IO("asset_io");

  /** The name in the result files. */
  public final String wire;

  ErrorKind(String wire) {
    this.wire = wire;
  }

  public static final ErrorKind[] ALL = values();
}
