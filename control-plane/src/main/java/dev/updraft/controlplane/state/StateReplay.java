package dev.updraft.controlplane.state;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventHandler;
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
 * The control plane's fold of one event, as the log's {@link EventHandler}: what each event type does to the
 * {@link ControlState}, given the state {@code s} before it and the event's app {@code app} (null before
 * {@code app.created}). The work is in {@link StateFold} and {@link DeletionFold}; this class is the one place that
 * says which of their methods an event type goes to. One instance per event, made by {@link StateFold#apply}.
 */
final class StateReplay implements EventHandler<ControlState> {
  private final ControlState s;
  private final AppState app;

  StateReplay(ControlState s, AppState app) {
    this.s = s;
    this.app = app;
  }

  @Override
  public ControlState appCreated(EventEnvelope e, AppCreated p) {
    return StateFold.appCreated(s, app, e, p);
  }

  @Override
  public ControlState tokenIssued(EventEnvelope e, TokenIssued p) {
    return StateFold.tokenIssued(s, app, e, p);
  }

  @Override
  public ControlState tokenRevoked(EventEnvelope e, TokenRevoked p) {
    return StateFold.tokenRevoked(s, app, e, p);
  }

  @Override
  public ControlState signingKeyRegistered(EventEnvelope e, SigningKeyRegistered p) {
    return s.with(StateFold.signingKeyRegistered(app, e, p));
  }

  @Override
  public ControlState channelMapped(EventEnvelope e, ChannelMapped p) {
    return s.with(StateFold.channelMapped(app, e, p));
  }

  @Override
  public ControlState updatePublished(EventEnvelope e, UpdatePublished p) {
    return s.with(StateFold.updatePublished(app, s.retention(e.appId()), e, p));
  }

  @Override
  public ControlState rolledBackToEmbedded(EventEnvelope e, RolledBackToEmbedded p) {
    return s.with(StateFold.rolledBackToEmbedded(app, s.retention(e.appId()), e, p));
  }

  @Override
  public ControlState rolloutChanged(EventEnvelope e, RolloutChanged p) {
    return s.with(StateFold.rolloutChanged(app, s.retention(e.appId()), e, p));
  }

  @Override
  public ControlState rolloutFinished(EventEnvelope e, RolloutFinished p) {
    return s.with(StateFold.rolloutFinished(app, s.retention(e.appId()), e, p));
  }

  @Override
  public ControlState rolloutReverted(EventEnvelope e, RolloutReverted p) {
    return s.with(StateFold.rolloutReverted(app, s.retention(e.appId()), e, p));
  }

  @Override
  public ControlState manifestsRenewed(EventEnvelope e, ManifestsRenewed p) {
    return s.with(StateFold.manifestsRenewed(app, e, p));
  }

  @Override
  public ControlState launchAssetStored(EventEnvelope e, LaunchAssetStored p) {
    return StateFold.launchAssetStored(s, app, e, p);
  }

  @Override
  public ControlState patchesComputed(EventEnvelope e, PatchesComputed p) {
    return StateFold.patchesComputed(s, app, e, p);
  }

  @Override
  public ControlState buildRegistered(EventEnvelope e, BuildRegistered p) {
    return StateFold.buildRegistered(s, app, e, p);
  }

  @Override
  public ControlState signingKeyRetired(EventEnvelope e, SigningKeyRetired p) {
    return s.with(StateFold.signingKeyRetired(app, e, p));
  }

  @Override
  public ControlState appUpdated(EventEnvelope e, AppUpdated p) {
    return s.with(StateFold.appUpdated(app, e, p));
  }

  @Override
  public ControlState updatesDeleted(EventEnvelope e, UpdatesDeleted p) {
    return DeletionFold.updatesDeleted(s, app, e, p);
  }

  @Override
  public ControlState updatePinned(EventEnvelope e, UpdatePinned p) {
    return DeletionFold.updatePinned(s, app, e, p);
  }

  @Override
  public ControlState branchDeleted(EventEnvelope e, BranchDeleted p) {
    return DeletionFold.branchDeleted(s, app, e, p);
  }

  @Override
  public ControlState channelDeleted(EventEnvelope e, ChannelDeleted p) {
    return s.with(DeletionFold.channelDeleted(app, e, p));
  }

  @Override
  public ControlState appDeleted(EventEnvelope e, AppDeleted p) {
    return DeletionFold.appDeleted(s, app, e, p);
  }

  @Override
  public ControlState retentionSet(EventEnvelope e, RetentionSet p) {
    return DeletionFold.retentionSet(s, app, e, p);
  }
}
