package dev.updraft.events;

import dev.updraft.events.UpdateEvents.Renewal;
import java.util.List;

/**
 * An app's code-signing key ring. The events {@link SigningKeyRegistered}, {@link SigningKeyRetired}.
 *
 * <p>A namespace of {@link EventPayload}, which extends it: each record is also named {@code EventPayload.<Name>}
 * (imports use this interface's name). Records immutable.
 */
public interface SigningEvents {
  /**
   * An app's code-signing certificate (never its private key). Carries the {@code noUpdateAvailable}
   * directive signed once with the new key, and fresh signatures for every body still servable.
   *
   * <p>With {@code ring} true (every registration this build writes) the key joins the app's key ring:
   * it replaces a key of the same {@code keyId} in place, or is added after the others; the other keys
   * stay active, and {@code resigned} carries every servable body signed with every key of the ring
   * after the change. Without it (events written before the key ring) the key replaces the whole ring:
   * after the event every answer of the app is signed with this key only.
   *
   * @param keyId the {@code keyid} devices are configured with (Expo's default is {@code main} in
   *     generated configs, {@code root} when absent)
   * @param certificatePem the code-signing certificate (for a chain: its leaf)
   * @param certificateChainPem nullable: chain mode, the PEM certificates served in the
   *     {@code certificate_chain} part, leaf first, then the intermediates (the root is embedded in the
   *     binary, never served); null for a self-signed certificate embedded in the binary
   * @param ring nullable: absent in events written before the key ring, meaning false
   */
  record SigningKeyRegistered(
      String keyId,
      String certificatePem,
      String certificateSha256,
      String noUpdateDirectiveBody,
      String noUpdateDirectiveSignature,
      List<Renewal> resigned,
      String certificateChainPem,
      Boolean ring)
      implements EventPayload {
    public SigningKeyRegistered {
      resigned = resigned == null ? List.of() : List.copyOf(resigned);
    }

    /** A registration as written before the key ring: the key replaces every other key of the app. */
    public SigningKeyRegistered(
        String keyId,
        String certificatePem,
        String certificateSha256,
        String noUpdateDirectiveBody,
        String noUpdateDirectiveSignature,
        List<Renewal> resigned) {
      this(keyId, certificatePem, certificateSha256, noUpdateDirectiveBody, noUpdateDirectiveSignature, resigned, null,
          null);
    }

    /** Whether the key joins the ring (true) or replaces every other key (false: an event from before the ring). */
    public boolean joinsRing() {
      return Boolean.TRUE.equals(ring);
    }

    /** The same registration carrying {@code some} of its re-signed entries (the rest go in renewal events). */
    public SigningKeyRegistered withResigned(List<Renewal> some) {
      return new SigningKeyRegistered(keyId, certificatePem, certificateSha256, noUpdateDirectiveBody,
          noUpdateDirectiveSignature, some, certificateChainPem, ring);
    }
  }

  /**
   * A key leaves the ring (never an app's last): nothing is signed with it, devices asking for its keyid are refused.
   * {@code forced} (absent = not, as in every event before it) overrode the key-in-use check: what it overrode beside.
   */
  record SigningKeyRetired(String keyId, Boolean forced, Long askedDevices, String lastAskedAt) implements EventPayload {}
}
