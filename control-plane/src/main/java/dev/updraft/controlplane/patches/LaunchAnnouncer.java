package dev.updraft.controlplane.patches;

import dev.updraft.common.ContentTypes;
import dev.updraft.controlplane.commands.CommandProcessor;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.storage.AssetStorage;
import dev.updraft.controlplane.storage.StoredAsset;
import dev.updraft.events.EventPayload;
import dev.updraft.events.AssetEvents.AssetVariant;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Makes sure an edge can serve every launch asset a manifest points it at: after an event that carries
 * manifest bodies (a publish, a revert's replacement, renewed or re-signed bodies), a
 * {@code launch-asset.stored} for each launch asset no earlier event announced, in the same transaction and
 * just before it, so an edge never holds a manifest whose launch asset it cannot serve. Only the identity bytes exist
 * yet; {@link PatchWorker} adds the encodings. Command thread.
 */
final class LaunchAnnouncer implements CommandProcessor.Follow {
  private final AssetStorage storage;
  private final Runnable poke;

  LaunchAnnouncer(AssetStorage storage, Runnable poke) {
    this.storage = storage;
    this.poke = poke;
  }

  @Override
  public List<EventPayload> implied(ControlState before, String appId, EventPayload payload) {
    Set<String> bodies = new LinkedHashSet<>();
    if (payload instanceof UpdatePublished) {
      addGroup(bodies, ((UpdatePublished) payload).group());
      poke.run();
    } else if (payload instanceof RolloutReverted) {
      addGroup(bodies, ((RolloutReverted) payload).replacement());
      poke.run();
    } else if (payload instanceof ManifestsRenewed) {
      addRenewals(bodies, ((ManifestsRenewed) payload).renewals());
    } else if (payload instanceof SigningKeyRegistered) {
      addRenewals(bodies, ((SigningKeyRegistered) payload).resigned());
    }
    List<EventPayload> out = new ArrayList<>();
    Set<String> announced = new LinkedHashSet<>();
    for (String body : bodies) {
      String sha = Bodies.launchSha(body);
      if (sha == null || before.deliveries(appId).launchAssets().containsKey(sha) || !announced.add(sha)) {
        continue;
      }
      out.add(identity(storage, appId, sha));
    }
    return out;
  }

  /** A launch asset as stored (identity only), with the storage URL edges fetch it from. */
  static LaunchAssetStored identity(AssetStorage storage, String appId, String sha) {
    StoredAsset s;
    try {
      s = storage.stat(appId, sha);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat launch asset sha256=" + sha + " of app " + appId, e);
    }
    long size = s == null ? -1 : s.size();
    String url = storage.urls(appId).url(sha, null, ContentTypes.JAVASCRIPT);
    return new LaunchAssetStored(sha, ContentTypes.JAVASCRIPT, size, List.of(new AssetVariant(AssetVariant.IDENTITY, sha, size, url)));
  }

  private static void addGroup(Set<String> bodies, UpdateGroup g) {
    if (g == null || g.rollsBackToEmbedded()) {
      return;
    }
    for (PlatformUpdate p : g.platforms()) {
      if (p.body() != null) {
        bodies.add(p.body());
      }
    }
  }

  private static void addRenewals(Set<String> bodies, List<Renewal> renewals) {
    for (Renewal r : renewals) {
      if (r.body() != null && r.body().contains("\"launchAsset\"")) {
        bodies.add(r.body());
      }
    }
  }
}
