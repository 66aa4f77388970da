package dev.updraft.cli;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/** The CLI is one package today; any package added under it must not form a cycle ({@code docs/architecture.md}). */
class LayeringTest {
  @Test
  void packagesFormNoCycle() {
    PackageLayers.of("dev.updraft.cli").check();
  }
}
