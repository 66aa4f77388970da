package dev.updraft.edge.image;

/** The platforms Expo clients send in {@code expo-platform}. */
public final class Platforms {
  /** iOS (tvOS builds send it too). */
  public static final String IOS = "ios";
  public static final String ANDROID = "android";

  private Platforms() {}

  /**
   * The constant for a platform value, or null when it is neither {@code ios} nor {@code android}
   * (compared exactly: clients send lower case). Callers may compare the result by identity.
   */
  public static String of(String value) {
    if (IOS.equals(value)) {
      return IOS;
    }
    if (ANDROID.equals(value)) {
      return ANDROID;
    }
    return null;
  }
}
