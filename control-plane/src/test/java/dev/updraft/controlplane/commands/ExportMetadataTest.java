package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.controlplane.commands.ExportMetadata.AssetFile;
import dev.updraft.controlplane.commands.ExportMetadata.PlatformFiles;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.testing.Fixtures;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExportMetadataTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void readsTheSdk50LayoutOfTheFixture() throws Exception {
    JsonNode m = JSON.readTree(Files.readAllBytes(Fixtures.update1().resolve("metadata.json")));
    List<PlatformFiles> all = ExportMetadata.parse(m, null);
    assertThat(all).extracting(PlatformFiles::platform).containsExactly("android", "ios");
    assertThat(all.get(1).bundlePath()).isEqualTo("_expo/static/js/ios/index-a15905a51887436352fc107e5a9c5ef6.hbc");
    assertThat(all.get(1).assets())
        .containsExactly(new AssetFile("assets/d9f444efbdfbe7931aa93beada07318a", "png"), new AssetFile("assets/97dae5a0e62ad8551d8a31897b425e63", "png"));
    assertThat(ExportMetadata.parse(m, List.of("ios"))).extracting(PlatformFiles::platform).containsExactly("ios");
    assertThat(ExportMetadata.paths(all)).hasSize(4);
  }

  @Test
  void readsTheOlderBundlesLayoutAndDropsRepeatedAssets() throws Exception {
    JsonNode m = JSON.readTree(
        "{\"version\":0,\"bundler\":\"metro\",\"fileMetadata\":{\"ios\":{\"bundle\":\"bundles/ios-4fe3891dcaca43901bd8797db78405e4.js\","
            + "\"assets\":[{\"path\":\"assets/aa\",\"ext\":\"ttf\"},{\"path\":\"./assets/aa\",\"ext\":\"ttf\"}]}}}");
    List<PlatformFiles> all = ExportMetadata.parse(m, null);
    assertThat(all).hasSize(1);
    assertThat(all.get(0).bundlePath()).isEqualTo("bundles/ios-4fe3891dcaca43901bd8797db78405e4.js");
    assertThat(all.get(0).assets()).containsExactly(new AssetFile("assets/aa", "ttf"));
  }

  @Test
  void refusesMalformedMetadataUnknownPlatformsAndPathsLeavingTheFolder() throws Exception {
    assertThatThrownBy(() -> ExportMetadata.parse(JSON.readTree("{\"version\":0}"), null)).hasMessageContaining("no fileMetadata");
    assertThatThrownBy(() -> ExportMetadata.parse(JSON.readTree("{\"fileMetadata\":{\"web\":{}}}"), null))
        .hasMessageContaining("no ios or android entry").hasMessageContaining("web");
    JsonNode ok = JSON.readTree("{\"fileMetadata\":{\"ios\":{\"bundle\":\"b.js\",\"assets\":[]}}}");
    assertThatThrownBy(() -> ExportMetadata.parse(ok, List.of("web")))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("unknown-platform"));
    assertThatThrownBy(() -> ExportMetadata.parse(ok, List.of("android")))
        .isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("platform-not-in-export"));
    for (String bad : List.of("../x", "a/../../x", "/etc/passwd", "a\\b", "C:/x", "./.")) {
      assertThatThrownBy(() -> ExportMetadata.path(bad)).as(bad).isInstanceOfSatisfying(CommandException.class, e -> assertThat(e.code()).isEqualTo("bad-path"));
    }
    assertThat(ExportMetadata.path("./assets//x")).isEqualTo("assets/x");
    assertThatThrownBy(() -> ExportMetadata.parse(JSON.readTree("{\"fileMetadata\":{\"ios\":{\"bundle\":\"b.js\",\"assets\":[{\"path\":\"a\",\"ext\":\"p/g\"}]}}}"), null))
        .hasMessageContaining("ext");
  }
}
