package dev.updraft.edge.image;

/** The two platform slots of one (branch, runtime version); either may be null. Immutable. */
final class RuntimeSlots {
  final Slot ios;
  final Slot android;

  RuntimeSlots(Slot ios, Slot android) {
    this.ios = ios;
    this.android = android;
  }

  /** {@code platform} is one of the interned constants {@link Platforms#IOS} / {@link Platforms#ANDROID}. */
  Slot of(String platform) {
    return platform == Platforms.IOS ? ios : platform == Platforms.ANDROID ? android : null;
  }
}
