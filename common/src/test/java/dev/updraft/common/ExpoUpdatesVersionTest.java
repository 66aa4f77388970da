package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExpoUpdatesVersionTest {

  @ParameterizedTest
  @ValueSource(strings = {"55.0.31", "55.0.40", "55.1.0", "56.0.27", "56.2.3", "57.0.23", "57.0.24", "58.0.0", "60.1.2-canary.1", "57.0.23+build.7"})
  void releasesWithTheEmbeddedBaseFixesApplyEmbeddedPatches(String v) {
    assertThat(ExpoUpdatesVersion.appliesEmbeddedPatches(v)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"55.0.30", "55.0.0", "56.0.26", "56.0.13", "57.0.22", "57.0.0", "54.9.99", "0.28.17", "57.0.23-canary-20260901"})
  void releasesBeforeTheFixesDoNot(String v) {
    assertThat(ExpoUpdatesVersion.appliesEmbeddedPatches(v)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "57", "57.0", "v57.0.24", "57.0.x", "057.0.1", "57.0.24.1", "latest", "^57.0.0", "57.0.24 beta"})
  void unparseableVersionsAreRefused(String v) {
    assertThat(ExpoUpdatesVersion.parse(v)).isNull();
    assertThat(ExpoUpdatesVersion.appliesEmbeddedPatches(v)).isFalse();
  }

  @Test
  void anUnknownVersionAppliesNone() {
    assertThat(ExpoUpdatesVersion.appliesEmbeddedPatches(null)).isFalse();
  }
}
