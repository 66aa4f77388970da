package dev.updraft.events;

import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AppEvents.AppDeleted;
import dev.updraft.events.AppEvents.AppUpdated;
import dev.updraft.events.AppEvents.TokenIssued;
import dev.updraft.events.AppEvents.TokenRevoked;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.AssetEvents.LaunchAssetStored;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.ChannelEvents.BranchDeleted;
import dev.updraft.events.ChannelEvents.ChannelDeleted;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.RolloutEvents.RolloutFinished;
import dev.updraft.events.RolloutEvents.RolloutReverted;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.RetentionSet;
import dev.updraft.events.UpdateEvents.RolledBackToEmbedded;
import dev.updraft.events.UpdateEvents.UpdatePinned;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.UpdateEvents.UpdatesDeleted;

/**
 * The one way to read the log: one method per {@link EventType}, each given the envelope and its payload
 * record, and {@link #dispatch}, the single place that maps an envelope to its method. Every fold of the log
 * implements this interface (the control plane's state, the edge's image delta, the ingester's history rows and
 * audit summaries), so an event type added to {@link EventType} is a compile error in {@link #dispatch}
 * (its switch has no default) and, once its method is declared here, in every fold until each says what the
 * event does to it. There are no default methods on purpose: a fold that ignores an event says so.
 *
 * <p>Events of a type or schema version this build cannot read never reach a handler: they are
 * {@link Decoded.Unknown}, which each reader treats on its own (the sequence still advances).
 *
 * @param <R> what the fold makes of one event (a new state, whether it applied, a summary line)
 */
public interface EventHandler<R> {
  R appCreated(EventEnvelope e, AppCreated p);

  R tokenIssued(EventEnvelope e, TokenIssued p);

  R tokenRevoked(EventEnvelope e, TokenRevoked p);

  R signingKeyRegistered(EventEnvelope e, SigningKeyRegistered p);

  R channelMapped(EventEnvelope e, ChannelMapped p);

  R updatePublished(EventEnvelope e, UpdatePublished p);

  R rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded p);

  R rolloutChanged(EventEnvelope e, RolloutChanged p);

  R rolloutFinished(EventEnvelope e, RolloutFinished p);

  R rolloutReverted(EventEnvelope e, RolloutReverted p);

  R manifestsRenewed(EventEnvelope e, ManifestsRenewed p);

  R launchAssetStored(EventEnvelope e, LaunchAssetStored p);

  R patchesComputed(EventEnvelope e, PatchesComputed p);

  R buildRegistered(EventEnvelope e, BuildRegistered p);

  R signingKeyRetired(EventEnvelope e, SigningKeyRetired p);

  R appUpdated(EventEnvelope e, AppUpdated p);

  R updatesDeleted(EventEnvelope e, UpdatesDeleted p);

  R updatePinned(EventEnvelope e, UpdatePinned p);

  R branchDeleted(EventEnvelope e, BranchDeleted p);

  R channelDeleted(EventEnvelope e, ChannelDeleted p);

  R appDeleted(EventEnvelope e, AppDeleted p);

  R retentionSet(EventEnvelope e, RetentionSet p);

  /**
   * Calls the method of {@code e}'s type with its payload. The casts are safe: {@link EventEnvelope} refuses a
   * payload that is not its type's record.
   */
  default R dispatch(EventEnvelope e) {
    EventPayload p = e.payload();
    return switch (e.type()) {
      case APP_CREATED -> appCreated(e, (AppCreated) p);
      case TOKEN_ISSUED -> tokenIssued(e, (TokenIssued) p);
      case TOKEN_REVOKED -> tokenRevoked(e, (TokenRevoked) p);
      case SIGNING_KEY_REGISTERED -> signingKeyRegistered(e, (SigningKeyRegistered) p);
      case CHANNEL_MAPPED -> channelMapped(e, (ChannelMapped) p);
      case UPDATE_PUBLISHED -> updatePublished(e, (UpdatePublished) p);
      case ROLLED_BACK_TO_EMBEDDED -> rolledBackToEmbedded(e, (RolledBackToEmbedded) p);
      case ROLLOUT_CHANGED -> rolloutChanged(e, (RolloutChanged) p);
      case ROLLOUT_FINISHED -> rolloutFinished(e, (RolloutFinished) p);
      case ROLLOUT_REVERTED -> rolloutReverted(e, (RolloutReverted) p);
      case MANIFESTS_RENEWED -> manifestsRenewed(e, (ManifestsRenewed) p);
      case LAUNCH_ASSET_STORED -> launchAssetStored(e, (LaunchAssetStored) p);
      case PATCHES_COMPUTED -> patchesComputed(e, (PatchesComputed) p);
      case BUILD_REGISTERED -> buildRegistered(e, (BuildRegistered) p);
      case SIGNING_KEY_RETIRED -> signingKeyRetired(e, (SigningKeyRetired) p);
      case APP_UPDATED -> appUpdated(e, (AppUpdated) p);
      case UPDATES_DELETED -> updatesDeleted(e, (UpdatesDeleted) p);
      case UPDATE_PINNED -> updatePinned(e, (UpdatePinned) p);
      case BRANCH_DELETED -> branchDeleted(e, (BranchDeleted) p);
      case CHANNEL_DELETED -> channelDeleted(e, (ChannelDeleted) p);
      case APP_DELETED -> appDeleted(e, (AppDeleted) p);
      case RETENTION_SET -> retentionSet(e, (RetentionSet) p);
    };
  }
}
