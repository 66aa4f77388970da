package dev.updraft.testing;

import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.Test;

/**
 * Test support's own packages: the OpenAPI checks above the infrastructure (its fixtures), the protocol checks and
 * the layering rules; no cycle ({@code docs/architecture.md}).
 */
class LayeringTest {
  @Test
  void packagesImportOnlyDownwardsAndFormNoCycle() {
    PackageLayers.of("dev.updraft.testing")
        .layer("OpenAPI checks", "openapi")
        .layer("test infrastructure, protocol checks, layering rules", "", "protocol", "architecture")
        .check();
  }
}
