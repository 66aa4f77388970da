package dev.updraft.load;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * The load generator's packages, top to bottom: a class may import its own layer and the layers below it, never
 * one above, and no two packages import each other ({@code docs/architecture.md}).
 */
class LayeringTest {
  static final PackageLayers LAYERS =
      PackageLayers.of("dev.updraft.load")
          .layer("commands", "")
          .layer("baseline", "baseline")
          .layer("reports", "report")
          .layer("runs", "run")
          .layer("replay and the simulated fleet", "replay", "fleet")
          .layer("traffic models, result checks, event fixtures", "traffic", "check", "events");

  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    LAYERS.check();
  }
}
