package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ContentTypes;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code updraft publish}: reads {@code metadata.json} of an {@code expo export} folder (SDK 50+
 * {@code _expo/static/js/...} or the older {@code bundles/...}), hashes every file it names, asks the
 * server which it lacks, uploads only those, and publishes the group. One idempotency key per publish;
 * a failed publish call is retried with the same key, so it never publishes twice.
 */
final class Publisher {
  private static final List<String> PLATFORMS = List.of("android", "ios");

  private final Api api;
  private final PrintStream err;
  private final boolean progress;

  Publisher(Api api, PrintStream err, boolean progress) {
    this.api = api;
    this.err = err;
    this.progress = progress;
  }

  /** A file named by metadata.json. */
  record LocalFile(String path, Path file, String sha256, long size, String contentType) {}

  /** What to publish: the flags of {@code updraft publish}, checked. Nullable: runtimeVersion (then expoConfig.json settles it) and the optional ones. */
  record Request(String app, String branch, String runtimeVersion, Path dist, List<String> platforms, String message, String gitCommit,
      Integer rolloutPercentage, ObjectNode guard, Path expoConfig, String idempotencyKey, Path projectDir, boolean sourceMaps) {}

  /**
   * Hashes, uploads what the server lacks, publishes; returns the groups the server answered with: one, or one
   * per runtime version when the platforms' runtime versions differ (a fingerprint per platform).
   */
  List<JsonNode> publish(Request r) throws CliException {
    Path dist = r.dist();
    JsonNode metadata = readJson(dist.resolve("metadata.json"), "metadata.json (is --dist the folder `npx expo export` wrote?)");
    JsonNode fm = metadata.get("fileMetadata");
    if (fm == null || !fm.isObject()) {
      throw new CliException(dist.resolve("metadata.json") + " has no fileMetadata; is --dist the folder `npx expo export` wrote?");
    }
    List<String> chosen = chosen(fm, r.platforms());
    Path configFile = r.expoConfig() != null ? r.expoConfig() : dist.resolve("expoConfig.json");
    ObjectNode expoConfig = expoConfig(configFile, r.expoConfig() != null);
    ExpoUpdatesCli expo = new ExpoUpdatesCli(r.projectDir());
    Map<String, String> runtimes = RuntimeVersions.settleEach(r.runtimeVersion(), expoConfig, configFile, chosen, err, expo::resolve);
    Map<String, List<String>> byRuntime = new LinkedHashMap<>();
    runtimes.forEach((p, v) -> byRuntime.computeIfAbsent(v, k -> new ArrayList<>()).add(p));
    String key = r.idempotencyKey() != null ? r.idempotencyKey() : "cli-" + UUID.randomUUID();
    List<JsonNode> groups = new ArrayList<>();
    for (Map.Entry<String, List<String>> e : byRuntime.entrySet()) {
      if (byRuntime.size() > 1) {
        err.println("publishing " + String.join(", ", e.getValue()) + " for runtime version " + e.getKey() + " (one group per runtime version)");
      }
      List<String> platforms = byRuntime.size() > 1 ? e.getValue() : r.platforms() == null ? null : chosen;
      groups.add(publishGroup(r, metadata, fm, e.getValue(), platforms, e.getKey(), expoConfig,
          byRuntime.size() > 1 ? key + "-" + String.join("-", e.getValue()) : key));
    }
    return groups;
  }

  private JsonNode publishGroup(Request r, JsonNode metadata, JsonNode fm, List<String> chosen, List<String> platforms, String runtime,
      ObjectNode expoConfig, String key) throws CliException {
    Map<String, LocalFile> files = files(r.dist(), fm, chosen);
    upload(r.app(), files);
    Map<String, String> maps = r.sourceMaps() ? SourceMapUpload.upload(api, err, r.app(), r.dist(), fm, chosen) : Map.of();

    ObjectNode body = Api.JSON.createObjectNode();
    body.put("branch", r.branch());
    body.put("runtimeVersion", runtime);
    if (platforms != null) {
      ArrayNode ps = body.putArray("platforms");
      platforms.forEach(ps::add);
    }
    if (r.message() != null) {
      body.put("message", r.message());
    }
    if (r.gitCommit() != null) {
      body.put("gitCommitHash", r.gitCommit());
    }
    body.set("metadata", metadata);
    ObjectNode fs = body.putObject("files");
    for (LocalFile f : files.values()) {
      ObjectNode n = fs.putObject(f.path());
      n.put("sha256", f.sha256());
      n.put("size", f.size());
    }
    if (!maps.isEmpty()) {
      ObjectNode sm = body.putObject("sourceMaps");
      maps.forEach(sm::put);
    }
    if (expoConfig != null) {
      body.set("expoConfig", expoConfig);
    }
    if (r.rolloutPercentage() != null) {
      body.put("rolloutPercentage", r.rolloutPercentage());
    }
    if (r.guard() != null) {
      body.set("rolloutGuard", r.guard());
    }
    body.put("idempotencyKey", key);
    return api.postRetrying(Session.app(r.app()) + "/updates", body, Map.of("Idempotency-Key", key));
  }

  /** The platforms of the export to publish: those asked for (each must be in the export), else every one in it. */
  private static List<String> chosen(JsonNode fm, List<String> platforms) throws CliException {
    List<String> chosen = new ArrayList<>();
    for (String p : PLATFORMS) {
      if (fm.has(p) && (platforms == null || platforms.contains(p))) {
        chosen.add(p);
      }
    }
    if (platforms != null) {
      for (String p : platforms) {
        if (!fm.has(p)) {
          throw new CliException("metadata.json has no " + p + " entry; export that platform or leave it out of --platform");
        }
      }
    }
    if (chosen.isEmpty()) {
      throw new CliException("metadata.json has no ios or android bundle");
    }
    return chosen;
  }

  /** The public app config: the file given, or the export's expoConfig.json when it exists; null without one. */
  private static ObjectNode expoConfig(Path configFile, boolean given) throws CliException {
    if (!given && !Files.exists(configFile)) {
      return null;
    }
    JsonNode c = readJson(configFile, "the public app config");
    if (!c.isObject()) {
      throw new CliException(configFile + " must be a JSON object (npx expo config --type public --json)");
    }
    return (ObjectNode) c;
  }

  static List<String> platforms(String flag) throws CliException {
    if (flag == null || flag.equals("all")) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (String p : flag.split(",")) {
      String t = p.trim().toLowerCase(Locale.ROOT);
      if (!PLATFORMS.contains(t)) {
        throw CliException.usage("--platform must be ios, android, or all: got '" + p + "'");
      }
      if (!out.contains(t)) {
        out.add(t);
      }
    }
    return out;
  }

  private Map<String, LocalFile> files(Path dist, JsonNode fm, List<String> chosen) throws CliException {
    Path root = dist.toAbsolutePath().normalize();
    Path realRoot;
    try {
      realRoot = root.toRealPath();
    } catch (java.io.IOException e) {
      throw new CliException("--dist " + root + " cannot be resolved: " + e.getMessage());
    }
    Map<String, String> types = new LinkedHashMap<>();
    for (String p : chosen) {
      JsonNode e = fm.get(p);
      JsonNode bundle = e.get("bundle");
      if (bundle == null || !bundle.isTextual()) {
        throw new CliException("metadata.json: fileMetadata." + p + ".bundle is missing");
      }
      types.put(bundle.asText(), ContentTypes.JAVASCRIPT);
      JsonNode assets = e.get("assets");
      if (assets != null && assets.isArray()) {
        for (JsonNode asset : assets) {
          String ext = asset.path("ext").asText("");
          types.putIfAbsent(asset.path("path").asText(""), ContentTypes.of(ext));
        }
      }
    }
    Map<String, LocalFile> out = new LinkedHashMap<>();
    Set<String> done = new LinkedHashSet<>();
    for (Map.Entry<String, String> t : types.entrySet()) {
      String path = t.getKey();
      Path file = inside(root, path);
      if (!Files.isRegularFile(file)) {
        throw new CliException("metadata.json names " + path + " but " + file + " does not exist; is the export complete?");
      }
      Path real;
      try {
        real = file.toRealPath();
      } catch (java.io.IOException e) {
        throw new CliException("metadata.json names " + path + " but " + file + " cannot be resolved: " + e.getMessage());
      }
      if (!real.startsWith(realRoot)) {
        throw new CliException(
            "metadata.json names '" + path + "', a symbolic link (or a path through one) to " + real + ", which is outside "
                + realRoot + "; refusing to upload files from outside --dist");
      }
      if (done.add(path)) {
        out.put(path, hash(path, file, t.getValue()));
      }
    }
    return out;
  }

  /**
   * The file {@code path} (from metadata.json) names inside {@code root}; refuses, before anything is
   * uploaded, paths that are empty, absolute, contain a backslash, a NUL or a {@code ..} segment, or
   * otherwise resolve outside {@code root}.
   */
  static Path inside(Path root, String path) throws CliException {
    String why = null;
    if (path.isEmpty()) {
      why = "it is empty";
    } else if (path.startsWith("/") || path.matches("^[A-Za-z]:.*")) {
      why = "it is an absolute path";
    } else if (path.indexOf('\\') >= 0) {
      why = "it contains a backslash";
    } else if (path.indexOf('\0') >= 0) {
      why = "it contains a NUL character";
    } else if (java.util.Arrays.asList(path.split("/", -1)).contains("..")) {
      why = "it has a .. segment";
    }
    Path file = null;
    if (why == null) {
      try {
        file = root.resolve(path).normalize();
        if (!file.startsWith(root) || file.equals(root)) {
          why = "it resolves to " + file;
        }
      } catch (java.nio.file.InvalidPathException e) {
        why = "it is not a valid path (" + e.getReason() + ")";
      }
    }
    if (why != null) {
      throw new CliException(
          "metadata.json names '" + path + "', which is outside " + root + " (" + why + "); refusing to upload files from outside --dist");
    }
    return file;
  }

  private void upload(String app, Map<String, LocalFile> files) throws CliException {
    Map<String, LocalFile> bySha = new LinkedHashMap<>();
    for (LocalFile f : files.values()) {
      bySha.putIfAbsent(f.sha256(), f);
    }
    ObjectNode ask = Api.JSON.createObjectNode();
    ArrayNode shas = ask.putArray("sha256");
    bySha.keySet().forEach(shas::add);
    JsonNode missing = api.post("/v1/apps/" + Api.enc(app) + "/assets/missing", ask).get("missing");
    List<LocalFile> todo = new ArrayList<>();
    long total = 0;
    for (JsonNode m : missing) {
      LocalFile f = bySha.get(m.asText());
      if (f != null) {
        todo.add(f);
        total += f.size();
      }
    }
    long[] done = {0};
    int n = 0;
    for (LocalFile f : todo) {
      n++;
      int index = n;
      long before = done[0];
      long all = total;
      api.upload(
          "/v1/apps/" + Api.enc(app) + "/assets/" + f.sha256(), f.file(), f.size(), f.contentType(),
          sent -> report(index, todo.size(), before + Math.min(sent, f.size()), all));
      done[0] += f.size();
    }
    if (progress) {
      err.print("\r\u001b[2K");
      err.println("uploaded " + todo.size() + " of " + files.size() + " files (" + mb(total) + "); the others were stored already");
    }
  }

  private void report(int index, int count, long sent, long total) {
    if (progress) {
      err.print("\ruploading " + index + "/" + count + "  " + mb(sent) + " / " + mb(total) + "   ");
      err.flush();
    }
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1_048_576.0);
  }

  static LocalFile hash(String path, Path file, String contentType) throws CliException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[64 * 1024];
      long size = 0;
      for (int r; (r = in.read(buf)) > 0; ) {
        d.update(buf, 0, r);
        size += r;
      }
      return new LocalFile(path, file, HexFormat.of().formatHex(d.digest()), size, contentType);
    } catch (IOException e) {
      throw new CliException("cannot read " + file + ": " + e.getMessage());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode readJson(Path p, String what) throws CliException {
    try {
      return Api.JSON.readTree(Files.readAllBytes(p));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new CliException(p + " not found: " + what);
    } catch (IOException e) {
      throw new CliException("cannot read " + p + " (" + what + "): " + e.getMessage());
    }
  }
}
