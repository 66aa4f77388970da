package dev.updraft.controlplane.core;

import java.util.Locale;

/**
 * What a per-app token may do: {@link #READ} reads, {@link #PUBLISH} also uploads, publishes, rolls
 * back, steers rollouts and maps channels, {@link #ADMIN} also manages tokens and signing keys. The
 * bootstrap admin token may do everything on every app, and alone may create apps.
 */
public enum Role {
  READ,
  PUBLISH,
  ADMIN;

  /** Whether a token with this role may act where {@code needed} is required. */
  public boolean allows(Role needed) {
    return ordinal() >= needed.ordinal();
  }

  /** The role named by its wire name ({@code read}, {@code publish}, {@code admin}), or null. */
  public static Role of(String wireName) {
    if (wireName == null) {
      return null;
    }
    for (Role r : values()) {
      if (r.wireName().equals(wireName.toLowerCase(Locale.ROOT))) {
        return r;
      }
    }
    return null;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
