package dev.updraft.events;

/**
 * An app, its settings and its tokens. The events {@link AppCreated}, {@link AppUpdated}, {@link AppDeleted},
 * {@link TokenIssued}, {@link TokenRevoked}.
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface AppEvents {
  /** A new app. The app id is the envelope's {@code appId}. */
  record AppCreated(String displayName) implements EventPayload {}

  /**
   * An app's settings changed ({@code updraft apps update}).
   *
   * @param defaultChannel nullable: none; the channel a device request without {@code expo-channel-name}
   *     is answered for
   */
  record AppUpdated(String defaultChannel) implements EventPayload {}

  /**
   * The app is deleted: its tokens stop working, its signing keys are destroyed, its groups stop being served
   * (devices get {@code unknown-app}) and its stored assets become garbage. A later {@code app.created} with
   * the same id starts a new app at sequence 1.
   *
   * @param displayName nullable: the name it had, for the audit trail
   */
  record AppDeleted(String displayName) implements EventPayload {}

  /**
   * A per-app token. Only the SHA-256 hex of the secret is recorded; the secret itself is shown once to whoever created it.
   *
   * @param role {@code publish}, {@code read} or {@code admin}
   * @param expiresAt nullable, absent meaning never (every token issued before the field): the ISO-8601 instant from which it is refused
   */
  record TokenIssued(String tokenId, String role, String secretSha256, String label, String expiresAt) implements EventPayload {}

  record TokenRevoked(String tokenId) implements EventPayload {}
}
