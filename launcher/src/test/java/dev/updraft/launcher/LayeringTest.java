package dev.updraft.launcher;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/** The launcher's packages: the commands above the backup tool; no cycle ({@code docs/architecture.md}). */
class LayeringTest {
  static final PackageLayers LAYERS =
      PackageLayers.of("dev.updraft.launcher")
          .layer("commands", "")
          .layer("backup and restore", "backup");

  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    LAYERS.check();
  }
}
