package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.render.ExpoTime;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.render.UrlSource;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.security.PrivateKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

  /** Signs bodies for one app with every key of its ring (or leaves them unsigned when it has none). */
  @FunctionalInterface
  interface Sign {
    /** The signatures of {@code body}; {@link Signed#NONE} when the app signs nothing. */
    Signed sign(String body);
  }

  /**
   * The {@code expo-signature} values of one body: {@code primary} (the ring's first key, for the
   * {@code signature} field readers written before the key ring serve) and one per keyid.
   *
   * @param primary nullable: unsigned
   */
  record Signed(String primary, Map<String, String> byKey) {
    static final Signed NONE = new Signed(null, Map.of());

    /** A platform entry with this body and these signatures. */
    PlatformUpdate entry(String platform, String updateId, String createdAt, String body, String launchAssetKey,
        List<String> assetKeys) {
      return new PlatformUpdate(platform, updateId, createdAt, body, primary, launchAssetKey, assetKeys, byKey);
    }

    /** A renewal of {@code updateId} with this body and these signatures. */
    Renewal renewal(String updateId, String body) {
      return new Renewal(updateId, body, primary, byKey);
    }
  }

  /** The app's signer; 409 when a private key of its ring is not in this control plane's key store. */
  Sign signer(AppState app) {
    return signer(app.appId(), app.keys());
  }

  /** A signer with every key of {@code ring} (ring order; the first is the primary); 409 for a missing key. */
  Sign signer(String appId, List<SigningState> ring) {
    if (ring.isEmpty()) {
      return body -> Signed.NONE;
    }
    List<PrivateKey> privateKeys = new ArrayList<>();
    for (SigningState k : ring) {
      privateKeys.add(privateKey(keys, appId, k));
    }
    return body -> {
      Map<String, String> byKey = new TreeMap<>();
      for (int i = 0; i < ring.size(); i++) {
        byKey.put(ring.get(i).keyId(), Signer.signatureHeader(privateKeys.get(i), ring.get(i).keyId(), body));
      }
      return new Signed(byKey.get(ring.get(0).keyId()), byKey);
    };
  }

  /** The private key of {@code key}; 409 when this control plane's key store cannot give it. */
  static PrivateKey privateKey(KeyStore keys, String appId, SigningState key) {
    PrivateKey pk;
    try {
      pk = keys.load(appId, key.certificateSha256());
    } catch (IllegalStateException e) {
      throw CommandException.conflict("signing-key-unavailable", e.getMessage());
    }
    if (pk == null) {
      throw CommandException.conflict(
          "signing-key-missing",
          "the private key for app " + appId + " keyid " + key.keyId() + " (certificate sha256=" + key.certificateSha256()
              + ") is not in this control plane's key store; mount the key store the key was registered with, or register the key again (updraft keys register)");
    }
    return pk;
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
      String body = ManifestRenderer.rerender(p.body(), id, created, branch, urls);
      // the same launch asset: its source map still applies
      entries.add(sign.sign(body).entry(p.platform(), id.toString(), created, body, p.launchAssetKey(), p.assetKeys())
          .withSourceMap(p.sourceMap()));
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
    Signed signed = signer(app).sign(body);
    List<PlatformUpdate> entries = new ArrayList<>();
    for (String p : platforms) {
      entries.add(signed.entry(p, UUID.randomUUID().toString(), commitTime, body, null, List.of()));
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
    if (p == null) {
      throw CommandException.badRequest("missing-field", "platform is required (ios or android)");
    }
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
