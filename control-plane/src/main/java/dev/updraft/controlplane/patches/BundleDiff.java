package dev.updraft.controlplane.patches;

import io.sigpipe.jbsdiff.Diff;
import io.sigpipe.jbsdiff.InvalidHeaderException;
import io.sigpipe.jbsdiff.Patch;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.commons.compress.compressors.CompressorException;

/**
 * Classic bsdiff ({@code BSDIFF40}, bzip2-compressed blocks) through jbsdiff, the format expo-updates'
 * {@code bspatch} applies. Memory: the suffix array of the base (two int arrays of its length) plus both
 * bundles and the patch, about 10 times the base size; callers bound the bundle size and run one diff at
 * a time. Stateless and thread-safe.
 */
final class BundleDiff {
  private BundleDiff() {}

  /** The patch that turns {@code base} into {@code target}. */
  static byte[] diff(byte[] base, byte[] target) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(1024, target.length / 8));
    try {
      Diff.diff(base, target, out);
    } catch (CompressorException | InvalidHeaderException e) {
      throw new IOException("bsdiff failed: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }

  /** {@code base} with {@code patch} applied (to check a patch before it is recorded). */
  static byte[] apply(byte[] base, byte[] patch) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(1024, base.length + base.length / 4));
    try {
      Patch.patch(base, patch, out);
    } catch (CompressorException | InvalidHeaderException e) {
      throw new IOException("bspatch failed: " + e.getMessage(), e);
    }
    return out.toByteArray();
  }
}
