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
