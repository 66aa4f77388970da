package dev.updraft.common;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An expo-updates release number ({@code 57.0.24}, {@code 56.0.27-canary-2026...}) and what the client of
 * that release can apply. Immutable.
 *
 * <p>A bundle patch whose base is the build's <em>embedded</em> bundle is applied only by 55.0.31+ within
 * 55.x, 56.0.27+ within 56.x, 57.0.23+ within 57.x and every later major (expo/expo #50018, #50019): earlier
 * clients download such a patch, fail to apply it and download the full bundle. A pre-release of a fixed
 * release ({@code 57.0.23-canary}) counts as before it, as semantic versioning orders them.
 */
public final class ExpoUpdatesVersion {
  private static final Pattern FORM = Pattern.compile("(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})\\.(0|[1-9]\\d{0,5})(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?");
  /** {major, minor, patch}: the first release of each fixed major line; majors after the last are all fixed. */
  private static final int[][] FIRST_FIXED = {{55, 0, 31}, {56, 0, 27}, {57, 0, 23}};

  private final String text;
  private final int major;
  private final int minor;
  private final int patch;
  private final boolean preRelease;

  private ExpoUpdatesVersion(String text, int major, int minor, int patch, boolean preRelease) {
    this.text = text;
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.preRelease = preRelease;
  }

  /** The version {@code text} names, or null when it is not {@code MAJOR.MINOR.PATCH} with an optional pre-release and build. */
  public static ExpoUpdatesVersion parse(String text) {
    if (text == null) {
      return null;
    }
    Matcher m = FORM.matcher(text.trim());
    if (!m.matches()) {
      return null;
    }
    return new ExpoUpdatesVersion(text.trim(), Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
        m.group(4) != null);
  }

  /** Whether a client of release {@code text} applies a patch from its embedded bundle; false when unknown or unparseable. */
  public static boolean appliesEmbeddedPatches(String text) {
    ExpoUpdatesVersion v = parse(text);
    return v != null && v.appliesEmbeddedPatches();
  }

  /** Whether a client of this release applies a patch from its embedded bundle. */
  public boolean appliesEmbeddedPatches() {
    int[] last = FIRST_FIXED[FIRST_FIXED.length - 1];
    if (major > last[0]) {
      return true;
    }
    for (int[] f : FIRST_FIXED) {
      if (f[0] == major) {
        int c = minor != f[1] ? Integer.compare(minor, f[1]) : Integer.compare(patch, f[2]);
        return c > 0 || c == 0 && !preRelease;
      }
    }
    return false; // before 55: no release applies one
  }

  /** The first releases that apply embedded-bundle patches, as people read them. */
  public static String fixedReleases() {
    return "55.0.31+ (55.x), 56.0.27+ (56.x), 57.0.23+ (57.x) or any later major";
  }

  @Override
  public String toString() {
    return text;
  }
}
