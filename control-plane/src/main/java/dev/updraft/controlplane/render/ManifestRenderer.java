package dev.updraft.controlplane.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.common.ContentTypes;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Renders manifest and directive bodies (protocol.md section 3). Field order is fixed
 * ({@code id, createdAt, runtimeVersion, launchAsset, assets, metadata, extra}); the launch asset has
 * no {@code fileExtension} and is {@code application/javascript}; every other asset has
 * {@code hash, key, contentType, fileExtension, url}; assets are de-duplicated by key.
 *
 * <p>{@code metadata} is {@code {"branchName": "<branch>"}}, the branch the group is published on: edges
 * answer with {@code expo-manifest-filters: branchname="<branch the device is mapped to>"}, and
 * expo-updates lets a device leave an update whose metadata fails the filters even for an older one
 * ({@code LoaderSelectionPolicyFilterAware}), as EAS does. {@code extra} holds {@code expoClient} (the public
 * app config) and, when that config has {@code extra.eas.projectId}, {@code eas.projectId} (which a
 * certificate with Expo's project extension is checked against). Thread-safe.
 */
public final class ManifestRenderer {
  /** The {@code noUpdateAvailable} directive body. */
  public static final String NO_UPDATE_AVAILABLE = "{\"type\":\"noUpdateAvailable\"}";

  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private ManifestRenderer() {}

  /** The {@code metadata} key naming an update's branch (EAS's name; filters compare it in lower case). */
  public static final String BRANCH_NAME = "branchName";

  /**
   * A new manifest body.
   *
   * @param branch the branch the group is published on, in {@code metadata.branchName}
   * @param expoClient nullable: the public app config, becomes {@code extra.expoClient} (and gives
   *     {@code extra.eas.projectId} when it has {@code extra.eas.projectId})
   */
  public static String manifest(
      UUID id,
      String createdAt,
      String runtimeVersion,
      String branch,
      AssetRef launchAsset,
      List<AssetRef> assets,
      ObjectNode expoClient,
      UrlSource urls) {
    ObjectNode root = JSON.createObjectNode();
    root.put("id", id.toString());
    root.put("createdAt", createdAt);
    root.put("runtimeVersion", runtimeVersion);
    ObjectNode launch = root.putObject("launchAsset");
    launch.put("hash", base64UrlOfHex(launchAsset.sha256Hex()));
    launch.put("key", launchAsset.md5Hex());
    launch.put("contentType", ContentTypes.JAVASCRIPT);
    launch.put("url", urls.url(launchAsset.sha256Hex(), null, ContentTypes.JAVASCRIPT));
    ArrayNode list = root.putArray("assets");
    Set<String> seen = new LinkedHashSet<>();
    seen.add(launchAsset.md5Hex());
    for (AssetRef a : assets) {
      if (!seen.add(a.md5Hex())) {
        continue; // same bytes named twice: older Android breaks on duplicate keys (expo PR 25898)
      }
      ObjectNode n = list.addObject();
      n.put("hash", base64UrlOfHex(a.sha256Hex()));
      n.put("key", a.md5Hex());
      n.put("contentType", a.contentType());
      n.put("fileExtension", a.fileExtension());
      n.put("url", urls.url(a.sha256Hex(), a.fileExtension(), a.contentType()));
    }
    root.putObject("metadata").put(BRANCH_NAME, branch);
    ObjectNode extra = root.putObject("extra");
    if (expoClient != null) {
      extra.set("expoClient", expoClient.deepCopy());
      JsonNode projectId = expoClient.path("extra").path("eas").path("projectId");
      if (projectId.isTextual() && !projectId.asText().isEmpty()) {
        extra.putObject("eas").put("projectId", projectId.asText());
      }
    }
    return write(root);
  }

  /**
   * A manifest re-rendered from an earlier body: the same assets and {@code extra} with URLs from
   * {@code urls}; a new {@code id}, {@code createdAt} and {@code metadata.branchName} when given
   * (republish, on a branch that may be another), the same ones when null (renewal of pre-signed URLs).
   */
  public static String rerender(String body, UUID newId, String newCreatedAt, String newBranch, UrlSource urls) {
    ObjectNode root = parse(body);
    if (newId != null) {
      root.put("id", newId.toString());
    }
    if (newCreatedAt != null) {
      root.put("createdAt", newCreatedAt);
    }
    if (newBranch != null) {
      JsonNode md = root.get("metadata");
      ObjectNode metadata = md instanceof ObjectNode ? (ObjectNode) md : JSON.createObjectNode();
      metadata.put(BRANCH_NAME, newBranch);
      root.set("metadata", metadata); // keeps its place among the fields when it was there
    }
    ObjectNode launch = (ObjectNode) root.get("launchAsset");
    launch.put("url", urls.url(hexOfBase64Url(launch.get("hash").asText()), null, ContentTypes.JAVASCRIPT));
    for (JsonNode a : (ArrayNode) root.get("assets")) {
      ObjectNode n = (ObjectNode) a;
      n.put(
          "url",
          urls.url(hexOfBase64Url(n.get("hash").asText()), n.get("fileExtension").asText(), n.get("contentType").asText()));
    }
    return write(root);
  }

  /** The {@code rollBackToEmbedded} directive body with its {@code commitTime}. */
  public static String rollBackToEmbedded(String commitTime) {
    ObjectNode root = JSON.createObjectNode();
    root.put("type", "rollBackToEmbedded");
    root.putObject("parameters").put("commitTime", commitTime);
    return write(root);
  }

  /** Every asset (launch asset first) of a manifest body, as storage addresses (SHA-256 hex). */
  public static List<String> assetSha256s(String body) {
    ObjectNode root = parse(body);
    Set<String> out = new LinkedHashSet<>();
    out.add(hexOfBase64Url(root.get("launchAsset").get("hash").asText()));
    for (JsonNode a : (ArrayNode) root.get("assets")) {
      out.add(hexOfBase64Url(a.get("hash").asText()));
    }
    return List.copyOf(out);
  }

  /** base64url without padding (RFC 4648 section 5) of the bytes given in hex: the manifest {@code hash}. */
  public static String base64UrlOfHex(String hex) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(HexFormat.of().parseHex(hex));
  }

  /** The inverse of {@link #base64UrlOfHex(String)}. */
  public static String hexOfBase64Url(String b64) {
    return HexFormat.of().formatHex(Base64.getUrlDecoder().decode(b64));
  }

  private static ObjectNode parse(String body) {
    try {
      return (ObjectNode) JSON.readTree(body);
    } catch (JsonProcessingException | ClassCastException e) {
      throw new IllegalStateException("stored manifest body is not a JSON object: " + e.getMessage(), e);
    }
  }

  private static String write(JsonNode root) {
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write manifest JSON", e);
    }
  }
}
