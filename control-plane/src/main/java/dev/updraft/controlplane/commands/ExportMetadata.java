package dev.updraft.controlplane.commands;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.core.CommandException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads the {@code metadata.json} of an {@code expo export} folder: {@code fileMetadata.<platform>} with
 * a {@code bundle} path (SDK 50+: {@code _expo/static/js/<platform>/...}; before: {@code bundles/...})
 * and {@code assets[]} of {@code {path, ext}}. Every path must stay inside the folder. Pure.
 */
public final class ExportMetadata {
  /** The platforms expo-updates clients send in {@code expo-platform}. */
  public static final List<String> PLATFORMS = List.of("android", "ios");

  private static final Pattern EXT = Pattern.compile("[A-Za-z0-9]{1,16}");

  private ExportMetadata() {}

  /** One asset file: its path in the export and its extension without the dot. */
  public record AssetFile(String path, String ext) {}

  /** What one platform's update is made of. */
  public record PlatformFiles(String platform, String bundlePath, List<AssetFile> assets) {}

  /**
   * The platforms to publish with their files.
   *
   * @param requested nullable or empty: every ios/android entry of the metadata
   */
  public static List<PlatformFiles> parse(JsonNode metadata, List<String> requested) {
    if (metadata == null || !metadata.isObject()) {
      throw malformed("metadata must be the JSON object from metadata.json");
    }
    JsonNode fm = metadata.get("fileMetadata");
    if (fm == null || !fm.isObject()) {
      throw malformed("metadata.json has no fileMetadata object; is this the dist folder of `expo export`?");
    }
    Set<String> chosen = new LinkedHashSet<>();
    if (requested == null || requested.isEmpty()) {
      for (Map.Entry<String, JsonNode> e : fm.properties()) {
        if (PLATFORMS.contains(e.getKey())) {
          chosen.add(e.getKey());
        }
      }
      if (chosen.isEmpty()) {
        throw malformed("metadata.json has no ios or android entry in fileMetadata (it has: " + names(fm) + ")");
      }
    } else {
      for (String p : requested) {
        if (!PLATFORMS.contains(p)) {
          throw CommandException.badRequest(
              "unknown-platform", "platform '" + p + "' is not supported: expo-updates clients are ios or android");
        }
        if (fm.get(p) == null) {
          throw CommandException.badRequest(
              "platform-not-in-export", "platform " + p + " is not in metadata.json (it has: " + names(fm) + "); export it or leave it out");
        }
        chosen.add(p);
      }
    }
    List<PlatformFiles> out = new ArrayList<>();
    for (String p : PLATFORMS) {
      if (!chosen.contains(p)) {
        continue;
      }
      JsonNode entry = fm.get(p);
      if (!entry.isObject()) {
        throw malformed("fileMetadata." + p + " must be an object");
      }
      JsonNode bundle = entry.get("bundle");
      if (bundle == null || !bundle.isTextual() || bundle.asText().isEmpty()) {
        throw malformed("fileMetadata." + p + ".bundle must be the path of the JavaScript bundle");
      }
      String bundlePath = path(bundle.asText());
      List<AssetFile> assets = new ArrayList<>();
      JsonNode list = entry.get("assets");
      if (list != null && !list.isNull()) {
        if (!list.isArray()) {
          throw malformed("fileMetadata." + p + ".assets must be an array");
        }
        Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < list.size(); i++) {
          JsonNode a = list.get(i);
          JsonNode path = a == null ? null : a.get("path");
          JsonNode ext = a == null ? null : a.get("ext");
          if (path == null || !path.isTextual() || ext == null || !ext.isTextual()) {
            throw malformed("fileMetadata." + p + ".assets[" + i + "] must have string path and ext");
          }
          String e = ext.asText().startsWith(".") ? ext.asText().substring(1) : ext.asText();
          if (!EXT.matcher(e).matches()) {
            throw malformed("fileMetadata." + p + ".assets[" + i + "].ext must be 1-16 letters or digits: got '" + ext.asText() + "'");
          }
          String pp = path(path.asText());
          if (seen.add(pp + "\u0000" + e)) {
            assets.add(new AssetFile(pp, e));
          }
        }
      }
      out.add(new PlatformFiles(p, bundlePath, List.copyOf(assets)));
    }
    return out;
  }

  /** A path inside the export folder, normalised; refuses anything that could leave it. */
  public static String path(String p) {
    if (p.isEmpty() || p.length() > 1024 || p.startsWith("/") || p.contains("\\") || p.indexOf('\0') >= 0 || p.contains(":")) {
      throw CommandException.badRequest(
          "bad-path", "path '" + p + "' in metadata.json is not a relative path inside the export folder");
    }
    List<String> parts = new ArrayList<>();
    for (String seg : p.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".")) {
        continue;
      }
      if (seg.equals("..")) {
        throw CommandException.badRequest(
            "bad-path", "path '" + p + "' in metadata.json escapes the export folder");
      }
      parts.add(seg);
    }
    if (parts.isEmpty()) {
      throw CommandException.badRequest("bad-path", "path '" + p + "' in metadata.json names no file");
    }
    return String.join("/", parts);
  }

  /** Every distinct path the chosen platforms need. */
  public static List<String> paths(List<PlatformFiles> files) {
    Set<String> out = new LinkedHashSet<>();
    for (PlatformFiles f : files) {
      out.add(f.bundlePath());
      for (AssetFile a : f.assets()) {
        out.add(a.path());
      }
    }
    return List.copyOf(out);
  }

  private static String names(JsonNode fm) {
    List<String> n = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : fm.properties()) {
      n.add(e.getKey());
    }
    return n.isEmpty() ? "nothing" : String.join(", ", n);
  }

  private static CommandException malformed(String message) {
    return CommandException.badRequest("malformed-metadata", message);
  }
}
