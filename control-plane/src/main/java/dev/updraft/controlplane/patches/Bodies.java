package dev.updraft.controlplane.patches;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.updraft.controlplane.render.ManifestRenderer;
import java.util.ArrayList;
import java.util.List;

/** What the patch job reads from a rendered manifest body: its assets' storage addresses and types. Thread-safe. */
final class Bodies {
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private Bodies() {}

  /** An asset a manifest names. */
  record Named(String sha256Hex, String contentType, boolean launch) {}

  /** Every asset of a manifest body, the launch asset first; empty for a directive or an unreadable body. */
  static List<Named> assets(String body) {
    List<Named> out = new ArrayList<>();
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (Exception e) {
      return out;
    }
    JsonNode launch = root.get("launchAsset");
    if (launch == null || launch.get("hash") == null) {
      return out;
    }
    out.add(new Named(ManifestRenderer.hexOfBase64Url(launch.get("hash").asText()), text(launch, "contentType"), true));
    JsonNode assets = root.get("assets");
    if (assets != null) {
      for (JsonNode a : assets) {
        if (a.get("hash") != null) {
          out.add(new Named(ManifestRenderer.hexOfBase64Url(a.get("hash").asText()), text(a, "contentType"), false));
        }
      }
    }
    return out;
  }

  /** The launch asset's storage address, or null. */
  static String launchSha(String body) {
    List<Named> a = assets(body);
    return a.isEmpty() ? null : a.get(0).sha256Hex();
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null ? "application/octet-stream" : v.asText();
  }
}
