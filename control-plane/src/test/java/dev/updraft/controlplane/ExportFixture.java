package dev.updraft.controlplane;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** Uploads an {@code expo export} folder and builds the publish request, as a publisher would. */
final class ExportFixture {
  private ExportFixture() {}

  static JsonNode metadata(Path dir) {
    try {
      return Http.JSON.readTree(Files.readAllBytes(dir.resolve("metadata.json")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every path metadata.json names. */
  static Set<String> paths(Path dir) {
    Set<String> out = new LinkedHashSet<>();
    for (Map.Entry<String, JsonNode> p : metadata(dir).get("fileMetadata").properties()) {
      out.add(p.getValue().get("bundle").asText());
      for (JsonNode a : p.getValue().get("assets")) {
        out.add(a.get("path").asText());
      }
    }
    return out;
  }

  /** An export of {@code n} small distinct assets (large manifests, small uploads), on both platforms. */
  static Path manyAssets(Path dir, int n) throws IOException {
    Files.createDirectories(dir.resolve("bundles"));
    Files.createDirectories(dir.resolve("assets"));
    Files.writeString(dir.resolve("bundles/ios-0123.js"), "console.log('ios');");
    Files.writeString(dir.resolve("bundles/android-4567.js"), "console.log('android');");
    StringBuilder assets = new StringBuilder();
    for (int i = 0; i < n; i++) {
      String name = String.format("%032x", 0x5eed0000L + i);
      Files.writeString(dir.resolve("assets/" + name), "asset " + i);
      assets.append(i == 0 ? "" : ",").append("{\"path\":\"assets/").append(name).append("\",\"ext\":\"png\"}");
    }
    Files.writeString(dir.resolve("metadata.json"), "{\"version\":0,\"bundler\":\"metro\",\"fileMetadata\":{"
        + "\"ios\":{\"bundle\":\"bundles/ios-0123.js\",\"assets\":[" + assets + "]},"
        + "\"android\":{\"bundle\":\"bundles/android-4567.js\",\"assets\":[" + assets + "]}}}");
    return dir;
  }

  static void upload(Http http, String app, Path dir) {
    for (String p : paths(dir)) {
      byte[] b = read(dir.resolve(p));
      Http.Resp r = http.putBytes("/v1/apps/" + app + "/assets/" + sha256(b), b, "application/octet-stream");
      if (r.status() != 201 && r.status() != 200) {
        throw new IllegalStateException("upload of " + p + " failed: " + r);
      }
    }
  }

  static ObjectNode publishBody(Path dir, String branch, String runtimeVersion) {
    ObjectNode b = Http.JSON.createObjectNode();
    b.put("branch", branch);
    b.put("runtimeVersion", runtimeVersion);
    b.set("metadata", metadata(dir));
    ObjectNode files = b.putObject("files");
    for (String p : paths(dir)) {
      byte[] bytes = read(dir.resolve(p));
      ObjectNode f = files.putObject(p);
      f.put("sha256", sha256(bytes));
      f.put("size", bytes.length);
    }
    if (Files.exists(dir.resolve("expoConfig.json"))) {
      try {
        b.set("expoConfig", Http.JSON.readTree(Files.readAllBytes(dir.resolve("expoConfig.json"))));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return b;
  }

  static byte[] read(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String sha256(byte[] b) {
    return HexFormat.of().formatHex(digest("SHA-256", b));
  }

  static String md5(byte[] b) {
    return HexFormat.of().formatHex(digest("MD5", b));
  }

  static byte[] digest(String alg, byte[] b) {
    try {
      return MessageDigest.getInstance(alg).digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
