package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.render.ExpoTime;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.EventPayload.PlatformUpdate;
import dev.updraft.events.EventPayload.UpdateGroup;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Builds the groups that republishes, roll backs and reverts put on a branch (copies of an earlier group,
 * {@code rollBackToEmbedded} directives), and signs bodies with an app's key. Command thread.
 */
final class Groups {
  private final AssetStorage storage;
  private final KeyStore keys;

  Groups(AssetStorage storage, KeyStore keys) {
    this.storage = storage;
    this.keys = keys;
  }

  /** Signs bodies for one app (or leaves them unsigned when it has no key). */
  @FunctionalInterface
  interface Sign {
    /** The {@code expo-signature} value of {@code body}, or null when the app signs nothing. */
    String header(String body);
  }

  /** The app's signer; 409 when its private key is not in this control plane's key store. */
  Sign signer(AppState app) {
    SigningState signing = app.signing();
    if (signing == null) {
      return body -> null;
    }
    PrivateKey key;
    try {
      key = keys.load(app.appId(), signing.certificateSha256());
    } catch (IllegalStateException e) {
      throw CommandException.conflict("signing-key-unavailable", e.getMessage());
    }
    if (key == null) {
      throw CommandException.conflict(
          "signing-key-missing",
          "the private key for app " + app.appId() + " (certificate sha256=" + signing.certificateSha256()
              + ") is not in this control plane's key store; mount the key store the key was registered with, or register the key again (updraft keys register)");
    }
    String keyId = signing.keyId();
    return body -> Signer.signatureHeader(key, keyId, body);
  }

  UrlSource urls(String appId) {
    return storage.urls(appId);
  }

  /**
   * A new group with the entries {@code from} of {@code source} (new ids and {@code createdAt}, same
   * assets, bodies rendered again), or a roll back to embedded when {@code source} is one.
   */
  UpdateGroup copyOf(
      AppState app, UpdateGroup source, List<PlatformUpdate> from, String branch, String runtimeVersion, String message,
      String idempotencyKey, Instant now) {
    if (source.rollsBackToEmbedded()) {
      List<String> platforms = new ArrayList<>();
      for (PlatformUpdate p : from) {
        platforms.add(p.platform());
      }
      return rollBack(app, branch, runtimeVersion, platforms, message, idempotencyKey, source.groupId(), now);
    }
    String created = ExpoTime.format(nextCreatedAt(app, branch, runtimeVersion, now));
    Sign sign = signer(app);
    UrlSource urls = storage.urls(app.appId());
    List<PlatformUpdate> entries = new ArrayList<>();
    for (PlatformUpdate p : from) {
      UUID id = UUID.randomUUID();
      String body = ManifestRenderer.rerender(p.body(), id, created, urls);
      entries.add(new PlatformUpdate(p.platform(), id.toString(), created, body, sign.header(body), p.launchAssetKey(), p.assetKeys()));
    }
    return new UpdateGroup(
        UUID.randomUUID().toString(), UpdateGroup.KIND_UPDATE, branch, runtimeVersion, message, source.gitCommitHash(),
        idempotencyKey, source.groupId(), null, entries);
  }

  /**
   * A {@code rollBackToEmbedded} group for {@code platforms}, its {@code commitTime} strictly later than
   * every entry on the branch and runtime version.
   *
   * @param republishedFrom nullable
   */
  UpdateGroup rollBack(
      AppState app, String branch, String runtimeVersion, List<String> platforms, String message, String idempotencyKey,
      String republishedFrom, Instant now) {
    String commitTime = ExpoTime.format(nextCreatedAt(app, branch, runtimeVersion, now));
    String body = ManifestRenderer.rollBackToEmbedded(commitTime);
    String signature = signer(app).header(body);
    List<PlatformUpdate> entries = new ArrayList<>();
    for (String p : platforms) {
      entries.add(new PlatformUpdate(p, UUID.randomUUID().toString(), commitTime, body, signature, null, List.of()));
    }
    return new UpdateGroup(
        UUID.randomUUID().toString(), UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, branch, runtimeVersion, message, null,
        idempotencyKey, republishedFrom, null, entries);
  }

  /** The {@code createdAt} of the next group: now, or just after the newest on the branch and runtime version. */
  static Instant nextCreatedAt(AppState app, String branch, String runtimeVersion, Instant now) {
    String latest = app.latestCreatedAt(branch, runtimeVersion);
    return ExpoTime.nextAfter(now, latest == null ? null : ExpoTime.parse(latest));
  }

  /** {@code p}, or 400 when expo-updates clients do not send it. */
  static String platform(String p) {
    if (!ExportMetadata.PLATFORMS.contains(p)) {
      throw CommandException.badRequest("unknown-platform", "platform '" + p + "' is not supported: expo-updates clients are ios or android");
    }
    return p;
  }

  /** The entries of {@code source} for {@code platforms} (nullable or empty: all), or 400. */
  static List<PlatformUpdate> choose(GroupState source, List<String> platforms) {
    if (platforms == null || platforms.isEmpty()) {
      return source.group().platforms();
    }
    List<PlatformUpdate> out = new ArrayList<>();
    for (String p : platforms) {
      platform(p);
      PlatformUpdate u = source.platform(p);
      if (u == null) {
        throw CommandException.badRequest(
            "platform-not-in-group", "group " + source.groupId() + " has no " + p + " update");
      }
      out.add(u);
    }
    return out;
  }
}
