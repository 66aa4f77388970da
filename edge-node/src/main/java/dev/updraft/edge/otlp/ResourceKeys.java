package dev.updraft.edge.otlp;

import java.util.Set;

/**
 * The resource attributes an app sets for its error reports to be attributed (docs/protocol.md, "Errors from the
 * app"): names in the style of OpenTelemetry's semantic conventions.
 */
final class ResourceKeys {
  /** The app's id on this server; may instead be in the path ({@code /apps/{appId}/v1/logs}) or the {@code expo-app-id} header. */
  static final String APP_ID = "expo.app.id";
  /** The update the app runs ({@code Updates.updateId}); absent: the embedded bundle. */
  static final String UPDATE_ID = "expo.update.id";
  /** {@code Updates.channel}. */
  static final String CHANNEL = "expo.channel";
  /** {@code Updates.runtimeVersion}. */
  static final String RUNTIME_VERSION = "expo.runtime_version";
  /** The EAS client id the app sends as {@code EAS-Client-ID} with its manifest requests. */
  static final String CLIENT_ID = "expo.client.id";
  /** OpenTelemetry's {@code os.name}: {@code ios} or {@code android} (any case). */
  static final String OS_NAME = "os.name";
  static final Set<String> ALL = Set.of(APP_ID, UPDATE_ID, CHANNEL, RUNTIME_VERSION, CLIENT_ID, OS_NAME);

  private ResourceKeys() {}
}
