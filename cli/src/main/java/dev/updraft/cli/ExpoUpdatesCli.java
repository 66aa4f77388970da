package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A policy runtime version ({@code fingerprint}, or any policy Updraft does not compute itself) resolved the
 * way expo resolves it for a build: by expo-updates' own CLI in the project,
 * {@code node node_modules/expo-updates/bin/cli.js runtimeversion:resolve --platform P} (what
 * {@code npx expo-updates runtimeversion:resolve} runs), which prints {@code {"runtimeVersion": ...}}.
 * Never a guess: no expo-updates in the project, no node, a failure or no value is a refusal.
 */
final class ExpoUpdatesCli {
  /** How long one resolution may take (a fingerprint hashes node_modules: seconds, more on a cold disk). */
  static final long TIMEOUT_SECONDS = 300;

  private final Path projectDir;

  ExpoUpdatesCli(Path projectDir) {
    this.projectDir = projectDir.toAbsolutePath().normalize();
  }

  Path projectDir() {
    return projectDir;
  }

  /** expo-updates' CLI script, found as node finds the package: in the project's node_modules or an ancestor's. */
  Path script() throws CliException {
    for (Path d = projectDir; d != null; d = d.getParent()) {
      Path cli = d.resolve("node_modules/expo-updates/bin/cli.js");
      if (Files.isRegularFile(cli)) {
        return cli;
      }
    }
    throw CliException.usage("the project " + projectDir + " has no expo-updates installed (no node_modules/expo-updates in it or above it): "
        + "run npm install in the app's directory and publish from there (or give --project-dir), or give --runtime-version");
  }

  /** The runtime version expo-updates resolves for {@code platform}. */
  String resolve(String platform) throws CliException {
    Path script = script();
    List<String> cmd = List.of(node(), script.toString(), "runtimeversion:resolve", "--platform", platform);
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("updraft-runtime", ".json");
      err = Files.createTempFile("updraft-runtime", ".err");
      Process p = new ProcessBuilder(cmd).directory(projectDir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new CliException("npx expo-updates runtimeversion:resolve --platform " + platform + " in " + projectDir + " did not finish in "
            + TIMEOUT_SECONDS + " s; give --runtime-version");
      }
      if (p.exitValue() != 0) {
        throw new CliException("npx expo-updates runtimeversion:resolve --platform " + platform + " in " + projectDir + " failed (exit "
            + p.exitValue() + "): " + lastLine(Files.readString(err, StandardCharsets.UTF_8)));
      }
      String printed = Files.readString(out, StandardCharsets.UTF_8).strip();
      JsonNode v = printed.isEmpty() ? null : Api.JSON.readTree(printed.substring(Math.max(0, printed.lastIndexOf("\n{") + 1)));
      JsonNode rv = v == null ? null : v.get("runtimeVersion");
      if (rv == null || !rv.isTextual() || rv.textValue().isEmpty()) {
        throw new CliException("npx expo-updates runtimeversion:resolve --platform " + platform + " in " + projectDir
            + " resolved no runtime version (" + (rv == null ? "nothing" : rv) + "); give --runtime-version");
      }
      return rv.textValue();
    } catch (IOException e) {
      throw new CliException("could not run " + String.join(" ", cmd) + " in " + projectDir + ": " + e.getMessage()
          + " (is node on the PATH?); give --runtime-version");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("interrupted while resolving the runtime version in " + projectDir);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  private static String node() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && new File(dir, "node").canExecute()) {
        return new File(dir, "node").getPath();
      }
    }
    return "node";
  }

  private static String lastLine(String s) {
    String t = s.strip();
    return t.isEmpty() ? "no message" : t.substring(t.lastIndexOf('\n') + 1);
  }

  private static void deleteQuietly(Path p) {
    if (p != null) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // a temp file left behind
      }
    }
  }
}
