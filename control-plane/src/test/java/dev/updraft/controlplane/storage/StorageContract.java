package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * What every backend does alike, for the later asset prune: it stores by address, lists an app's assets
 * with their sizes and ages (and nothing else), and deletes one without touching the others.
 */
final class StorageContract {
  private StorageContract() {}

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  static String md5(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
  }

  static StoredAsset put(AssetStorage s, String app, Path dir, String text) throws Exception {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    Path f = Files.createTempFile(dir, "asset", ".bin");
    Files.write(f, b);
    return s.put(app, sha256(b), f, md5(b), b.length, "application/octet-stream");
  }

  /** Stores three assets in two apps, lists, deletes one, lists again; deleting twice is harmless. */
  static void listsAndDeletes(AssetStorage s, Path dir) throws Exception {
    Instant before = Instant.now().minus(Duration.ofMinutes(5));
    assertThat(s.list("prune")).as("an app with nothing stored").isEmpty();
    StoredAsset a = put(s, "prune", dir, "first asset");
    StoredAsset b = put(s, "prune", dir, "second asset, longer");
    StoredAsset other = put(s, "prune-other", dir, "another app's asset");
    // the local backend keeps a gzip copy made on first download beside the file; it must not be listed
    s.stat("prune", a.sha256Hex());

    List<ListedAsset> listed = s.list("prune");
    assertThat(listed).extracting(ListedAsset::sha256Hex).containsExactlyInAnyOrder(a.sha256Hex(), b.sha256Hex());
    for (ListedAsset l : listed) {
      StoredAsset stored = l.sha256Hex().equals(a.sha256Hex()) ? a : b;
      assertThat(l.size()).as("size of %s", l.sha256Hex()).isEqualTo(stored.size());
      assertThat(l.storedAt()).as("stored just now").isAfter(before).isBefore(Instant.now().plus(Duration.ofMinutes(5)));
    }

    s.delete("prune", a.sha256Hex());
    assertThat(s.stat("prune", a.sha256Hex())).as("deleted").isNull();
    assertThat(s.list("prune")).extracting(ListedAsset::sha256Hex).containsExactly(b.sha256Hex());
    assertThat(s.stat("prune", b.sha256Hex())).isEqualTo(b);
    assertThat(s.list("prune-other")).extracting(ListedAsset::sha256Hex).containsExactly(other.sha256Hex());
    s.delete("prune", a.sha256Hex());
    assertThat(s.list("prune")).hasSize(1);

    StoredAsset again = put(s, "prune", dir, "first asset");
    assertThat(again).as("a deleted asset can be uploaded again").isEqualTo(a);
    assertThat(s.stat("prune", a.sha256Hex())).isEqualTo(a);
  }

  /**
   * The edge images' area: an object reads back as written, is replaced by a write of the same name, is listed by
   * name (and no asset is), and is gone once deleted; reading or deleting what is not there is harmless.
   */
  static void keepsEdgeImages(AssetStorage s) throws Exception {
    ImageObjects images = s.edgeImages();
    assertThat(images.read("newest")).as("nothing written yet").isNull();
    byte[] image = "sealed image bytes".getBytes(StandardCharsets.UTF_8);
    String name = "image-00000001767225600000-0123abcd.sealed";
    images.write(name, image);
    images.write("newest", "first".getBytes(StandardCharsets.UTF_8));
    images.write("newest", "second".getBytes(StandardCharsets.UTF_8));
    assertThat(images.read(name)).isEqualTo(image);
    assertThat(new String(images.read("newest"), StandardCharsets.UTF_8)).as("replaced").isEqualTo("second");
    assertThat(images.names()).containsExactlyInAnyOrder(name, "newest");
    images.delete(name);
    images.delete(name);
    assertThat(images.read(name)).isNull();
    assertThat(images.names()).containsExactly("newest");
    assertThat(images.describe()).doesNotContain("secret");
  }
}
