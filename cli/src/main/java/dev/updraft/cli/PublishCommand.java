package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code updraft publish}: an {@code expo export} folder becomes one update group (see {@link Publisher}). */
@Command(name = "publish", sortOptions = false, footer = {Root.RUNTIME_NOTE, Root.EXIT_STATUS},
    description = {
      "Upload what the server lacks from an `npx expo export` folder and publish one update group (one update per platform).",
      "A failed publish is retried with the same idempotency key, so it never publishes twice."
    })
final class PublishCommand implements Action {
  @Option(names = "--app", paramLabel = "APP", required = true, converter = Values.Text.class, order = 1, description = "the app")
  String app;

  @Option(names = "--branch", paramLabel = "B", required = true, converter = Values.Text.class, order = 2,
      description = "the branch (a channel that was never mapped serves the branch of its name)")
  String branch;

  @Option(names = "--dist", paramLabel = "DIR", required = true, converter = Values.Text.class, order = 3,
      description = "the folder `npx expo export` wrote (with metadata.json)")
  String dist;

  @Option(names = "--runtime-version", paramLabel = "R", converter = Values.Text.class, order = 4,
      description = "the runtime version of the builds that may run it; default: what expoConfig.json settles (a literal runtimeVersion, "
          + "or the appVersion or nativeVersion policy); the fingerprint policy (and any other) is resolved per platform by expo-updates' CLI "
          + "in --project-dir (npx expo-updates runtimeversion:resolve --platform P), printed, and refused when expo-updates is not installed "
          + "there; platforms whose runtime versions differ are published as one group each")
  String runtimeVersion;

  @Option(names = "--project-dir", paramLabel = "DIR", converter = Values.Text.class, order = 5,
      description = "the app's directory, with expo-updates in its node_modules, where a policy runtime version is resolved (default the current one)")
  String projectDir;

  @Option(names = "--platform", paramLabel = "ios|android|all", order = 6, description = "publish only these platforms (comma-separated; default all in the export)")
  String platform;

  @Option(names = "--message", paramLabel = "M", order = 7, description = "what changed")
  String message;

  @Option(names = "--git-commit", paramLabel = "H", order = 8, description = "the commit it was built from")
  String gitCommit;

  @Option(names = "--expo-config", paramLabel = "FILE", order = 9,
      description = "the public app config (default DIR/expoConfig.json, when present: npx expo config --type public --json)")
  String expoConfig;

  @Option(names = "--rollout-percentage", paramLabel = "P", converter = Values.WholeNumber.class, order = 10,
      description = "start as a rollout to P %% of devices (the others keep the previous update)")
  Integer rolloutPercentage;

  @Mixin GuardOptions guard = new GuardOptions();

  @Option(names = "--idempotency-key", paramLabel = "K", order = 60, description = "the key of this publish (default a new one)")
  String idempotencyKey;

  @Option(names = "--no-source-maps", order = 62,
      description = "do not upload the source maps `npx expo export --source-maps` writes beside each bundle (BUNDLE.map); by default "
          + "each one found is uploaded (privately: never served to devices) so that the top frames of reported errors are shown in the "
          + "original source (updraft errors, the console)")
  boolean noSourceMaps;

  @Option(names = "--no-progress", order = 61, description = "no upload progress on stderr (it is drawn only on a terminal anyway)")
  boolean noProgress;

  @Override
  public void run(Session s) throws CliException {
    ObjectNode g = guard.toJson();
    if (g != null && rolloutPercentage == null) {
      throw CliException.usage("--guard-* needs --rollout-percentage");
    }
    Publisher.Request r = new Publisher.Request(app, branch, runtimeVersion, Path.of(dist), Publisher.platforms(platform), message,
        gitCommit, rolloutPercentage, g, expoConfig == null ? null : Path.of(expoConfig), idempotencyKey,
        Path.of(projectDir == null ? System.getProperty("user.dir") : projectDir), !noSourceMaps);
    Api api = s.api();
    List<JsonNode> groups = new Publisher(api, s.err, s.terminal && !s.json && !noProgress).publish(r);
    StringBuilder human = new StringBuilder();
    ArrayNode all = Api.JSON.createArrayNode();
    for (JsonNode group : groups) {
      human.append(human.length() == 0 ? "" : "\n").append(Session.group(group, group.path("replayed").asBoolean()
          ? "already published (same idempotency key): group " : "published group "));
      all.add(group);
    }
    // --json: the group, or an array of groups when the platforms' runtime versions differ
    s.print(groups.size() == 1 ? groups.get(0) : all, human.toString());
    for (JsonNode group : groups) {
      orphanWarning(api, s, app, group.path("runtimeVersion").asText(null));
    }
  }

  /**
   * Warns (never fails) when no device checked in with the runtime version in the last 7 days and no
   * build was registered for it: likely a runtime version no installed binary has.
   */
  static void orphanWarning(Api api, Session s, String app, String runtimeVersion) {
    if (runtimeVersion == null) {
      return;
    }
    JsonNode a;
    try {
      a = api.get(Session.app(app) + "/runtime-versions/" + Api.enc(runtimeVersion) + "/activity", Duration.ofSeconds(10));
    } catch (CliException e) {
      return; // an older server, none to ask, or no answer in time: the publish itself succeeded
    }
    if (a.path("orphan").asBoolean(false)) {
      s.err.println("warning: orphan update? no device checked in with runtime version " + runtimeVersion + " in the last "
          + a.path("days").asInt(7) + " days and no build is registered for it (updraft builds register); devices only take updates "
          + "of their own runtime version");
    }
  }
}
