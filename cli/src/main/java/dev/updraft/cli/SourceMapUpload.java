package dev.updraft.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The source maps of a publish: {@code npx expo export --source-maps} writes each platform's map beside its bundle,
 * named as the bundle plus {@code .map} ({@code _expo/static/js/android/index-<md5>.hbc.map}). Each one found is
 * uploaded to {@code PUT /v1/apps/{app}/source-maps/{sha256}} (the server checks it is a source map v3 and keeps it
 * privately) and named in the publish's {@code sourceMaps}. A platform without a map is published without one.
 */
final class SourceMapUpload {
  private SourceMapUpload() {}

  /** Platform to the SHA-256 of its uploaded map. */
  static Map<String, String> upload(Api api, PrintStream err, String app, Path dist, JsonNode fm, List<String> platforms) throws CliException {
    Path root = dist.toAbsolutePath().normalize();
    Map<String, String> out = new LinkedHashMap<>();
    for (String p : platforms) {
      String bundle = fm.path(p).path("bundle").asText("");
      if (bundle.isEmpty()) {
        continue;
      }
      String path = bundle + ".map";
      Path file = Publisher.inside(root, path);
      if (!Files.isRegularFile(file)) {
        continue;
      }
      try {
        Path real = file.toRealPath();
        if (!real.startsWith(root.toRealPath())) {
          throw new CliException("the source map " + path + " is a symbolic link (or a path through one) to " + real + ", which is outside "
              + root + "; refusing to upload files from outside --dist");
        }
      } catch (java.io.IOException e) {
        throw new CliException("the source map " + file + " cannot be resolved: " + e.getMessage());
      }
      Publisher.LocalFile f = Publisher.hash(path, file, "application/json");
      api.upload("/v1/apps/" + Api.enc(app) + "/source-maps/" + f.sha256(), f.file(), f.size(), f.contentType(), sent -> {});
      out.put(p, f.sha256());
    }
    if (!out.isEmpty()) {
      err.println("uploaded the source maps of " + String.join(", ", out.keySet()) + " (kept private: never served to devices)");
    }
    return out;
  }
}
