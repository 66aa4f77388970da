package dev.updraft.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Which code a benchmark measured, for its summary JSON: the commit of the working directory's checkout, and
 * whether the tree had uncommitted changes (then the figures belong to no commit). The benchmark scripts under
 * {@code load/bench/} write the same into {@code tree.txt}; this is for the benchmark mains run by hand.
 */
public final class SourceTree {
  private SourceTree() {}

  /**
   * The short commit, {@code "<commit> with uncommitted changes"} when tracked files differ from it, or
   * {@code "unknown (...)"} when there is no git or no checkout here (a benchmark still runs).
   */
  public static String describe() {
    return describe(Path.of("").toAbsolutePath());
  }

  /** {@link #describe()} for the checkout {@code dir} is in. */
  static String describe(Path dir) {
    String commit = git(dir, "rev-parse", "--short", "HEAD");
    if (commit == null || commit.isEmpty()) {
      return "unknown (no git checkout in " + dir + ")";
    }
    String changes = git(dir, "status", "--porcelain", "--untracked-files=no");
    if (changes == null) {
      return commit + " (working tree not checked)";
    }
    return changes.isEmpty() ? commit : commit + " with uncommitted changes";
  }

  private static String git(Path dir, String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      return p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8).trim() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
