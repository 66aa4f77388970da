package dev.updraft.controlplane.commands;

import dev.updraft.common.ExpoUpdatesVersion;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * How launch assets reach devices: registering a native build's embedded bundle (a publisher command),
 * and recording what the patch worker stored (encodings of launch assets, bundle patches: system events).
 * Thread-safe.
 */
public final class DeliveryCommands {
  private static final Pattern SHA = Pattern.compile("[0-9a-f]{64}");

  private final Vertx vertx;
  private final CommandProcessor processor;

  DeliveryCommands(Vertx vertx, CommandProcessor processor) {
    this.vertx = vertx;
    this.processor = processor;
  }

  /**
   * Registers a build's embedded bundle (already stored as an asset of {@code size} bytes) so that its
   * devices can be sent patches from it: always, when {@code expoUpdatesVersion} applies them
   * ({@link ExpoUpdatesVersion#appliesEmbeddedPatches()}). Registering the same embedded update again
   * replaces the entry.
   *
   * @param expoUpdatesVersion nullable (unknown: no patch from the embedded bundle); refused when unparseable
   */
  public Future<BuildRegistered> registerBuild(
      String actor, String appId, String platform, String runtimeVersion, String embeddedUpdateId, String bundleSha256, long size,
      String expoUpdatesVersion) {
    Groups.platform(platform);
    Validate.runtimeVersion("runtimeVersion", runtimeVersion);
    String id = embeddedUpdateId == null ? null : embeddedUpdateId.toLowerCase(Locale.ROOT);
    try {
      if (id == null || !UUID.fromString(id).toString().equals(id)) {
        throw new IllegalArgumentException();
      }
    } catch (IllegalArgumentException e) {
      throw CommandException.badRequest(
          "invalid-embedded-update-id", "embeddedUpdateId must be the UUID the build sends as expo-embedded-update-id: got '" + embeddedUpdateId + "'");
    }
    if (bundleSha256 == null || !SHA.matcher(bundleSha256).matches()) {
      throw CommandException.badRequest("invalid-sha256", "bundleSha256 must be a lower-case hex SHA-256: got '" + bundleSha256 + "'");
    }
    ExpoUpdatesVersion version = expoUpdatesVersion == null ? null : ExpoUpdatesVersion.parse(expoUpdatesVersion);
    if (expoUpdatesVersion != null && version == null) {
      throw CommandException.badRequest("invalid-expo-updates-version", "expoUpdatesVersion must be an expo-updates release such as 57.0.24 "
          + "(MAJOR.MINOR.PATCH, as in node_modules/expo-updates/package.json): got '" + (expoUpdatesVersion.length() > 40 ? expoUpdatesVersion.substring(0, 40) + "…" : expoUpdatesVersion) + "'");
    }
    BuildRegistered b = new BuildRegistered(platform, runtimeVersion, id, bundleSha256, size, version == null ? null : version.toString());
    return processor.submit(
        vertx,
        "register-build",
        (s, now) -> {
          Prologue.app(s, appId);
          return Plan.of(List.of(new NewEvent(appId, actor, b)), st -> b);
        });
  }

  /**
   * Appends what the patch worker stored for an app, as the system actor: {@link LaunchAssetStored} and
   * {@link PatchesComputed} events (nothing else is accepted). An app that no longer exists is skipped.
   *
   * @return the state once they are folded
   */
  public Future<ControlState> record(String appId, List<EventPayload> payloads) {
    List<NewEvent> events = new ArrayList<>();
    for (EventPayload p : payloads) {
      if (!(p instanceof LaunchAssetStored) && !(p instanceof PatchesComputed)) {
        throw new IllegalArgumentException("not a delivery event: " + p.type().wireName());
      }
      events.add(new NewEvent(appId, Commands.ACTOR_SYSTEM, p));
    }
    return processor.submit(
        vertx,
        "record-deliveries",
        (s, now) -> {
          AppState app = s.app(appId);
          return app == null || events.isEmpty() ? Plan.nothing(s) : Plan.of(events, st -> st);
        });
  }
}
