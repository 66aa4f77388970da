package dev.updraft.edge;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A test-only stand-in for the control plane's publish: renders manifests from the shared
 * {@code expo export} fixtures per protocol.md §3 (launch asset without {@code fileExtension}, assets
 * with a dotted {@code fileExtension} and {@code contentType}, base64url SHA-256 {@code hash}, MD5-hex
 * {@code key}, absolute {@code url}, {@code createdAt} with milliseconds and {@code Z},
 * {@code metadata.branchName} the group's branch, {@code extra.expoClient} from {@code expoConfig.json})
 * and signs them with the fixture key (or with every key of a ring).
 */
final class FixtureManifests {
  static final ObjectMapper JSON = new ObjectMapper();
  /** Assets are served by the control plane's storage, not the edge: the URLs only need to be absolute. */
  static final String ASSET_BASE = "http://127.0.0.1:9/assets/";
  private static final DateTimeFormatter CREATED_AT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private FixtureManifests() {}

  static String createdAt(Instant t) {
    return CREATED_AT.format(t);
  }

  /** One manifest body for {@code platform} of an export folder, with {@code metadata} empty (as published before branch metadata). */
  static String render(Path export, String platform, String updateId, String createdAt, String runtimeVersion) {
    return render(export, platform, updateId, createdAt, runtimeVersion, null);
  }

  /** One manifest body; {@code branch} nullable: {@code metadata} empty, else {@code {"branchName": branch}}. */
  static String render(Path export, String platform, String updateId, String createdAt, String runtimeVersion,
      String branch) {
    try {
      JsonNode meta = JSON.readTree(export.resolve("metadata.json").toFile()).path("fileMetadata").path(platform);
      ObjectNode m = JSON.createObjectNode();
      m.put("id", updateId);
      m.put("createdAt", createdAt);
      m.put("runtimeVersion", runtimeVersion);
      byte[] bundle = Files.readAllBytes(export.resolve(meta.path("bundle").asText()));
      ObjectNode launch = m.putObject("launchAsset");
      launch.put("hash", sha256Url(bundle));
      launch.put("key", md5Hex(bundle));
      launch.put("contentType", "application/javascript");
      launch.put("url", ASSET_BASE + md5Hex(bundle));
      ArrayNode assets = m.putArray("assets");
      Set<String> seen = new HashSet<>();
      for (JsonNode a : meta.path("assets")) {
        byte[] bytes = Files.readAllBytes(export.resolve(a.path("path").asText()));
        String key = md5Hex(bytes);
        if (!seen.add(key)) {
          continue;
        }
        ObjectNode o = assets.addObject();
        o.put("hash", sha256Url(bytes));
        o.put("key", key);
        o.put("contentType", "image/" + a.path("ext").asText());
        o.put("fileExtension", "." + a.path("ext").asText());
        o.put("url", ASSET_BASE + key);
      }
      ObjectNode metadata = m.putObject("metadata");
      if (branch != null) {
        metadata.put("branchName", branch);
      }
      m.putObject("extra").set("expoClient", JSON.readTree(export.resolve("expoConfig.json").toFile()));
      return JSON.writeValueAsString(m);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot render manifest from " + export, e);
    }
  }

  /**
   * An update group with an iOS and an Android update of {@code export}, {@code metadata.branchName} its
   * branch; signed when {@code signer} is given.
   */
  static UpdateGroup group(String branch, String runtimeVersion, Path export, Instant createdAt, TestSigner signer,
      Rollout rollout) {
    return group(branch, runtimeVersion, export, createdAt, signer == null ? List.of() : List.of(signer), rollout, true);
  }

  /**
   * An update group signed with every key of {@code ring} (its first key's signature in {@code signature},
   * one per keyid in {@code signatures}, as the control plane writes them; a ring of one writes no
   * {@code signatures}, as before the key ring).
   *
   * @param branchMetadata false: {@code metadata} empty, as groups published before branch metadata
   */
  static UpdateGroup group(String branch, String runtimeVersion, Path export, Instant createdAt, List<TestSigner> ring,
      Rollout rollout, boolean branchMetadata) {
    List<PlatformUpdate> platforms = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      String id = UUID.randomUUID().toString();
      String at = createdAt(createdAt);
      String body = render(export, platform, id, at, runtimeVersion, branchMetadata ? branch : null);
      Map<String, String> sigs = new TreeMap<>();
      for (TestSigner s : ring) {
        sigs.put(s.keyId(), s.signatureHeader(body));
      }
      platforms.add(new PlatformUpdate(platform, id, at, body, ring.isEmpty() ? null : sigs.get(ring.get(0).keyId()),
          null, List.of(), ring.size() > 1 ? sigs : Map.of()));
    }
    return new UpdateGroup(UUID.randomUUID().toString(), UpdateGroup.KIND_UPDATE, branch, runtimeVersion, "test",
        null, null, null, rollout, platforms);
  }

  /** A roll back to embedded on a branch: per platform the directive, {@code commitTime} = {@code at}. */
  static UpdateGroup rollback(String branch, String runtimeVersion, Instant at, TestSigner signer) {
    List<PlatformUpdate> platforms = new ArrayList<>();
    for (String platform : List.of("ios", "android")) {
      String time = createdAt(at);
      String body = "{\"type\":\"rollBackToEmbedded\",\"parameters\":{\"commitTime\":\"" + time + "\"}}";
      platforms.add(new PlatformUpdate(platform, UUID.randomUUID().toString(), time, body,
          signer == null ? null : signer.signatureHeader(body), null, List.of()));
    }
    return new UpdateGroup(UUID.randomUUID().toString(), UpdateGroup.KIND_ROLLBACK_TO_EMBEDDED, branch,
        runtimeVersion, null, null, null, null, null, platforms);
  }

  static String sha256Url(byte[] b) {
    try {
      return Base64.getUrlEncoder().withoutPadding().encodeToString(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static String md5Hex(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
