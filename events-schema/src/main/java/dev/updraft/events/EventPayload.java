package dev.updraft.events;

/**
 * The payload of an event. One immutable record per {@link EventType}; fields marked nullable may be
 * absent on the wire. Collections are never null (absent means empty).
 *
 * <p>Manifest and directive bodies travel as the exact UTF-8 text that was signed ({@code body}), with
 * the complete {@code expo-signature} structured-header value beside it ({@code signature}, null when the
 * app had no signing key). Edges serve these bytes as they are and never re-serialize them.
 *
 * <p>The records are declared by concept in the interfaces this one extends ({@link AppEvents},
 * {@link SigningEvents}, {@link ChannelEvents}, {@link UpdateEvents}, {@link RolloutEvents}, {@link AssetEvents}),
 * so each is still named {@code EventPayload.<Name>}; an import names its concept
 * ({@code import dev.updraft.events.UpdateEvents.UpdateGroup;}). A new event type: its record in its concept's
 * interface, in {@code permits} below, in {@link EventType}, and its method in {@link EventHandler}, which every
 * fold of the log implements (the compiler then names each fold that does not handle it yet).
 */
public sealed interface EventPayload
    extends AppEvents, SigningEvents, ChannelEvents, UpdateEvents, RolloutEvents, AssetEvents
    permits AppEvents.AppCreated,
        AppEvents.TokenIssued,
        AppEvents.TokenRevoked,
        AppEvents.AppUpdated,
        AppEvents.AppDeleted,
        SigningEvents.SigningKeyRegistered,
        SigningEvents.SigningKeyRetired,
        ChannelEvents.ChannelMapped,
        ChannelEvents.BranchDeleted,
        ChannelEvents.ChannelDeleted,
        UpdateEvents.UpdatePublished,
        UpdateEvents.RolledBackToEmbedded,
        UpdateEvents.ManifestsRenewed,
        UpdateEvents.UpdatesDeleted,
        UpdateEvents.UpdatePinned,
        UpdateEvents.RetentionSet,
        RolloutEvents.RolloutChanged,
        RolloutEvents.RolloutFinished,
        RolloutEvents.RolloutReverted,
        AssetEvents.LaunchAssetStored,
        AssetEvents.PatchesComputed,
        AssetEvents.BuildRegistered {

  /** The type of this payload. */
  default EventType type() {
    return EventType.of(getClass());
  }
}
