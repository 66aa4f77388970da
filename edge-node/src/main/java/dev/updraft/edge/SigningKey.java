package dev.updraft.edge;

import dev.updraft.edge.image.AppImage;

/**
 * Which of the app's ring keys signs the answer: the one whose keyid the device asks for in
 * {@code expo-expect-signature}, none when it asks for no signature, or a refusal when the app signs nothing or
 * has no key of that keyid.
 */
final class SigningKey {
  /** The device asks for no signature. */
  static final int UNSIGNED = -1;
  /** The device asks for a signature this app cannot give: {@link #refusal} says why. */
  static final int REFUSED = -2;

  private SigningKey() {}

  /** The ring index of the key to sign with (recorded in {@code r.ringKeyId}), {@link #UNSIGNED} or {@link #REFUSED}. */
  static int choose(DeviceRequest r, AppImage app) {
    if (!r.expectSignature) {
      return UNSIGNED;
    }
    if (!app.signs()) {
      return REFUSED;
    }
    int key = app.keyIndex(r.expectKeyId);
    if (key < 0) {
      return REFUSED;
    }
    r.ringKeyId = app.keyIdAt(key);
    return key;
  }

  /** Why {@link #choose} refused {@code r}. */
  static Refusal refusal(DeviceRequest r, AppImage app) {
    return app.signs() ? Refusal.unknownKeyId(r.expectKeyId, r.appId, app.keyIds()) : Refusal.signingNotConfigured(r.appId);
  }
}
