package dev.updraft.controlplane;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * The control plane's packages, top to bottom: a class may import its own layer and the layers below it, never one
 * above, and no two packages import each other (directly or round a loop). A new package must be placed here.
 * {@code docs/architecture.md} describes the same order.
 */
class LayeringTest {
  static final PackageLayers LAYERS =
      PackageLayers.of("dev.updraft.controlplane")
          .layer("composition root", "")
          .layer("HTTP and extensions", "api", "console", "insights", "patches")
          .layer("commands and the automatic-revert guard", "commands", "guard")
          .layer("extension contracts and configuration", "spi", "config")
          .layer("console sign-in (OIDC) and its flags", "signin")
          .layer("history, snapshots, the edge image and the keys devices ask for", "history", "snapshots", "edgeimage", "keyuse")
          .layer("source maps: the decoder, the frame, the cache", "sourcemaps")
          .layer("log, state, storage, signing, rendering, telemetry database", "log", "state", "storage", "signing", "render", "telemetry")
          .layer("core: roles and the refusal", "core");

  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    LAYERS.check();
  }
}
