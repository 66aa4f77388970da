package dev.updraft.ingester;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * The ingester's packages, top to bottom: a class may import its own layer and the layers below it, never one
 * above, and no two packages import each other. A new package must be placed here ({@code docs/architecture.md}).
 */
class LayeringTest {
  static final PackageLayers LAYERS =
      PackageLayers.of("dev.updraft.ingester")
          .layer("composition root and the check-in consumer", "")
          .layer("the history projection, the error reports", "history", "errors")
          .layer("the download funnel's rows", "funnel")
          .layer("Kafka consumer plumbing", "kafka");

  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    LAYERS.check();
  }
}
