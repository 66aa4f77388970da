package dev.updraft.controlplane.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalAssetStorageTest {

  @Test
  void listsAnAppsAssetsWithSizesAndAgesAndDeletesOne(@TempDir Path dir) throws Exception {
    LocalAssetStorage s = new LocalAssetStorage(dir.resolve("assets"), () -> "http://127.0.0.1:1");
    StorageContract.listsAndDeletes(s, dir);
    StorageContract.keepsEdgeImages(s);
  }

  @Test
  void listingLeavesOutMetadataGzipAndTemporaryFilesAndDeleteRemovesThem(@TempDir Path dir) throws Exception {
    LocalAssetStorage s = new LocalAssetStorage(dir.resolve("assets"), () -> "http://127.0.0.1:1");
    StoredAsset a = StorageContract.put(s, "demo", dir, "some javascript");
    Path data = dir.resolve("assets/demo/" + a.sha256Hex());
    Path gz = s.gzipped(data);
    Files.writeString(data.resolveSibling(a.sha256Hex() + ".tmp-123"), "half");
    assertThat(s.list("demo")).extracting(ListedAsset::sha256Hex).containsExactly(a.sha256Hex());
    s.delete("demo", a.sha256Hex());
    assertThat(gz).doesNotExist();
    assertThat(data.resolveSibling(a.sha256Hex() + ".meta")).doesNotExist();
    assertThat(s.list("demo")).isEmpty();
  }

  @Test
  void anAssetHasItsVariantsOnlyOnceEveryAskedEncodingIsStoredBesideIt(@TempDir Path dir) throws Exception {
    LocalAssetStorage s = new LocalAssetStorage(dir.resolve("assets"), () -> "http://127.0.0.1:1");
    StoredAsset a = StorageContract.put(s, "demo", dir, "some javascript to encode");
    assertThat(s.hasVariants("demo", a.sha256Hex(), List.of("zstd", "gzip"))).as("nothing encoded yet").isFalse();
    Path zst = Files.writeString(dir.resolve("copy.zst"), "zstd bytes");
    s.putVariant("demo", a.sha256Hex(), "zstd", zst, "aa".repeat(32), "bb".repeat(16), Files.size(zst));
    assertThat(s.hasVariants("demo", a.sha256Hex(), List.of("zstd", "gzip"))).as("gzip still missing").isFalse();
    Path gz = Files.writeString(dir.resolve("copy.gz"), "gzip bytes");
    s.putVariant("demo", a.sha256Hex(), "gzip", gz, "cc".repeat(32), "dd".repeat(16), Files.size(gz));
    assertThat(s.hasVariants("demo", a.sha256Hex(), List.of("zstd", "gzip"))).isTrue();
    assertThat(s.hasVariants("demo", "ee".repeat(32), List.of("zstd"))).as("an asset not stored").isFalse();
  }
}
