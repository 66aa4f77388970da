package dev.updraft.edge;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * The edge's packages, top to bottom: a class may import its own layer and the layers below it, never one above,
 * and no two packages import each other. A new package must be placed here ({@code docs/architecture.md}).
 */
class LayeringTest {
  static final PackageLayers LAYERS =
      PackageLayers.of("dev.updraft.edge")
          .layer("composition root and the manifest route", "")
          .layer("asset route, log reader, check-ins, request replay, OTLP errors", "assets", "log", "checkin", "replay", "otlp")
          .layer("the in-memory image", "image");

  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    LAYERS.check();
  }
}
