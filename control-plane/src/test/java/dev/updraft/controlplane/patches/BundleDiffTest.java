package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BundleDiffTest {

  @Test
  void shouldWriteAClassicBsdiff40PatchThatRebuildsTheFixturesNextBundle() throws Exception {
    byte[] base = PatchBench.bundle(Fixtures.update1(), "ios");
    byte[] target = PatchBench.bundle(Fixtures.update2(), "ios");
    byte[] patch = BundleDiff.diff(base, target);
    assertThat(new String(Arrays.copyOf(patch, 8), StandardCharsets.US_ASCII)).isEqualTo("BSDIFF40");
    assertThat(patch.length).isLessThan(target.length / 4);
    assertThat(BundleDiff.apply(base, patch)).isEqualTo(target);
  }

  @Test
  void shouldKeepEditsOfASyntheticBundleSmall() throws Exception {
    byte[] base = PatchBench.synthetic(256 * 1024, 1);
    byte[] target = PatchBench.edited(base, 0.01, 2);
    byte[] patch = BundleDiff.diff(base, target);
    assertThat(BundleDiff.apply(base, patch)).isEqualTo(target);
    assertThat(patch.length).isLessThan(target.length / 10);
  }
}
