package dev.updraft.events;

import java.util.HashMap;
import java.util.Map;

/**
 * Every event type with its stable wire name and the payload record it carries. The wire name is
 * never derived from a class name; renaming a Java class changes nothing on the wire.
 */
public enum EventType {
  APP_CREATED("app.created", EventPayload.AppCreated.class),
  TOKEN_ISSUED("token.issued", EventPayload.TokenIssued.class),
  TOKEN_REVOKED("token.revoked", EventPayload.TokenRevoked.class),
  SIGNING_KEY_REGISTERED("signing-key.registered", EventPayload.SigningKeyRegistered.class),
  CHANNEL_MAPPED("channel.mapped", EventPayload.ChannelMapped.class),
  UPDATE_PUBLISHED("update.published", EventPayload.UpdatePublished.class),
  ROLLED_BACK_TO_EMBEDDED("update.rolled-back-to-embedded", EventPayload.RolledBackToEmbedded.class),
  ROLLOUT_CHANGED("rollout.changed", EventPayload.RolloutChanged.class),
  ROLLOUT_FINISHED("rollout.finished", EventPayload.RolloutFinished.class),
  ROLLOUT_REVERTED("rollout.reverted", EventPayload.RolloutReverted.class),
  MANIFESTS_RENEWED("manifests.renewed", EventPayload.ManifestsRenewed.class),
  LAUNCH_ASSET_STORED("launch-asset.stored", EventPayload.LaunchAssetStored.class),
  PATCHES_COMPUTED("patches.computed", EventPayload.PatchesComputed.class),
  BUILD_REGISTERED("build.registered", EventPayload.BuildRegistered.class),
  SIGNING_KEY_RETIRED("signing-key.retired", EventPayload.SigningKeyRetired.class),
  APP_UPDATED("app.updated", EventPayload.AppUpdated.class),
  UPDATES_DELETED("updates.deleted", EventPayload.UpdatesDeleted.class),
  UPDATE_PINNED("update.pinned", EventPayload.UpdatePinned.class),
  BRANCH_DELETED("branch.deleted", EventPayload.BranchDeleted.class),
  CHANNEL_DELETED("channel.deleted", EventPayload.ChannelDeleted.class),
  APP_DELETED("app.deleted", EventPayload.AppDeleted.class),
  RETENTION_SET("retention.set", EventPayload.RetentionSet.class);

  /** Schema version written by this build for every type. Readers accept 1..CURRENT_SCHEMA_VERSION. */
  public static final int CURRENT_SCHEMA_VERSION = 1;

  private static final Map<String, EventType> BY_WIRE_NAME = new HashMap<>();

  static {
    for (EventType t : values()) {
      BY_WIRE_NAME.put(t.wireName, t);
    }
  }

  private final String wireName;
  private final Class<? extends EventPayload> payloadClass;

  EventType(String wireName, Class<? extends EventPayload> payloadClass) {
    this.wireName = wireName;
    this.payloadClass = payloadClass;
  }

  /** The stable type string on the wire, for example {@code update.published}. */
  public String wireName() {
    return wireName;
  }

  /** The payload record of this type (for the codec). */
  Class<? extends EventPayload> payloadClass() {
    return payloadClass;
  }

  /** The type for a wire name, or {@code null} when this build does not know it. */
  public static EventType fromWireName(String wireName) {
    return BY_WIRE_NAME.get(wireName);
  }

  /** The type whose payload record is {@code payloadClass}. */
  static EventType of(Class<? extends EventPayload> payloadClass) {
    for (EventType t : values()) {
      if (t.payloadClass == payloadClass) {
        return t;
      }
    }
    throw new IllegalArgumentException("no event type for payload class=" + payloadClass.getName());
  }
}
