package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ExpoUpdatesVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code updraft builds register|list}: a native build's embedded bundle, so that devices still running it
 * can be sent bundle patches (what EAS calls {@code update:embedded:upload}).
 */
@Command(name = "builds", footer = Root.EXIT_STATUS,
    description = "Register a native build's embedded bundle (patches for fresh installs), or list the registered builds.",
    subcommands = {BuildsCommand.Register.class, BuildsCommand.List.class})
final class BuildsCommand {
  private BuildsCommand() {}

  @Command(name = "register", sortOptions = false, footer = Root.EXIT_STATUS,
      description = {
        "Upload the bundle a build embeds and register it with the update id the build sends as expo-embedded-update-id",
        "and the build's expo-updates version. Its devices then get patches from that bundle when their expo-updates applies them",
        "(55.0.31+, 56.0.27+, 57.0.23+, any later major); builds on older or unknown versions get the full bundle."
      })
  static final class Register implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
    String app;

    @Option(names = "--platform", paramLabel = "ios|android", required = true, converter = Values.Text.class, order = 2, description = "the build's platform")
    String platform;

    @Option(names = "--runtime-version", paramLabel = "R", required = true, converter = Values.Text.class, order = 3,
        description = "the build's runtime version")
    String runtimeVersion;

    @Option(names = "--embedded-update-id", paramLabel = "ID", required = true, converter = Values.Text.class, order = 4,
        description = "the id of the update embedded in the build (the build's app.manifest / app.config id)")
    String embeddedUpdateId;

    @Option(names = "--bundle", paramLabel = "FILE", required = true, converter = Values.Text.class, order = 5,
        description = "the bundle the build embeds (main.jsbundle on iOS, index.android.bundle on Android)")
    String bundle;

    @Option(names = "--expo-updates-version", paramLabel = "V", converter = Values.Text.class, order = 6,
        description = "the expo-updates version the build ships (57.0.24); by default read from node_modules/expo-updates/package.json "
            + "in the bundle's directory or one above it, else the current directory's")
    String expoUpdatesVersion;

    @Override
    public void run(Session s) throws CliException {
      Path file = Path.of(bundle);
      if (!Files.isRegularFile(file)) {
        throw CliException.usage("--bundle " + bundle + " is not a file");
      }
      String version = expoUpdatesVersion;
      if (version == null) {
        version = ProjectVersion.expoUpdates(file.toAbsolutePath().getParent(), Path.of("").toAbsolutePath());
        if (version == null) {
          s.err.println("warning: no --expo-updates-version and no node_modules/expo-updates/package.json above " + bundle
              + ": the build is registered with an unknown version, and its devices get the full bundle, never a patch from it");
        }
      } else if (ExpoUpdatesVersion.parse(version) == null) {
        throw CliException.usage("--expo-updates-version " + version + " is not an expo-updates release such as 57.0.24");
      }
      String sha;
      long size;
      try (InputStream in = Files.newInputStream(file)) {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[1 << 16];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
          d.update(buf, 0, n);
        }
        sha = HexFormat.of().formatHex(d.digest());
        size = Files.size(file);
      } catch (IOException e) {
        throw new CliException("--bundle " + bundle + " cannot be read: " + e.getMessage());
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 missing from this JVM", e);
      }
      Api api = s.api();
      api.upload(Session.app(app) + "/assets/" + sha, file, size, "application/javascript", n -> { });
      ObjectNode b = Api.JSON.createObjectNode();
      b.put("platform", platform.toLowerCase(Locale.ROOT));
      b.put("runtimeVersion", runtimeVersion);
      b.put("embeddedUpdateId", embeddedUpdateId);
      b.put("bundleSha256", sha);
      if (version != null) {
        b.put("expoUpdatesVersion", version);
      }
      JsonNode r = api.post(Session.app(app) + "/builds", b);
      s.print(r, "registered the " + r.path("platform").asText() + " build of runtime " + r.path("runtimeVersion").asText() + " embedding update "
          + r.path("embeddedUpdateId").asText() + " (bundle " + sha + ", " + size + " bytes, expo-updates "
          + (r.path("expoUpdatesVersion").isTextual() ? r.path("expoUpdatesVersion").asText() : "unknown") + "): "
          + (r.path("embeddedPatches").asBoolean() ? "its devices get patches from it for every servable update of the runtime"
              : "its expo-updates cannot apply a patch from the embedded bundle; its devices get the full bundle"));
    }
  }

  @Command(name = "list", description = "List the registered builds.", footer = Root.EXIT_STATUS)
  static final class List implements Action {
    @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, description = "the app")
    String app;

    @Override
    public void run(Session s) throws CliException {
      JsonNode r = s.api().get(Session.app(app) + "/builds");
      StringBuilder b = new StringBuilder();
      for (JsonNode n : r.path("builds")) {
        b.append(n.path("platform").asText()).append("  ").append(n.path("runtimeVersion").asText()).append("  ")
            .append(n.path("embeddedUpdateId").asText()).append("  ").append(n.path("bundleSha256").asText()).append("  ")
            .append(n.path("size").asLong()).append(" bytes  expo-updates ")
            .append(n.path("expoUpdatesVersion").isTextual() ? n.path("expoUpdatesVersion").asText() : "unknown")
            .append(n.path("patchesStopped").asBoolean() ? "  patches stopped (too many failed)"
                : n.path("embeddedPatches").asBoolean() ? "  patches" : "  full bundle only");
        if (n.path("patchesServed").isNumber()) {
          b.append("  ").append(n.path("patchesServed").asLong()).append(" served, ").append(n.path("patchesFailed").asLong()).append(" failed");
        }
        b.append('\n');
      }
      s.print(r, b.length() == 0 ? "no builds registered" : b.toString().stripTrailing());
    }
  }
}
