package dev.updraft.edge.assets;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AssetRouteTest {
  static final String ID = "7d2a1b3c-0000-4000-8000-00000000000a";

  @Test
  void shouldReadUpdateIdsQuotedOrNotWeakOrStrongInAnyCase() {
    assertThat(AssetRoute.id(ID)).isEqualTo(ID);
    assertThat(AssetRoute.id("\"" + ID + "\"")).isEqualTo(ID);
    assertThat(AssetRoute.id("W/\"" + ID.toUpperCase() + "\"")).isEqualTo(ID);
    assertThat(AssetRoute.id(" " + ID + " , \"other\"")).isEqualTo(ID);
    assertThat(AssetRoute.id("*")).isNull();
    assertThat(AssetRoute.id("")).isNull();
    assertThat(AssetRoute.id(null)).isNull();
  }

  @Test
  void shouldAskForAPatchOnlyWhenAImListsBsdiff() {
    assertThat(AssetRoute.wantsPatch(List.of("bsdiff"))).isTrue();
    assertThat(AssetRoute.wantsPatch(List.of("vcdiff, BSDIFF"))).isTrue();
    assertThat(AssetRoute.wantsPatch(List.of("bsdiff;q=0"))).isFalse();
    assertThat(AssetRoute.wantsPatch(List.of("bsdiff;q=0.5"))).isTrue();
    assertThat(AssetRoute.wantsPatch(List.of("not-bsdiff"))).isFalse();
    assertThat(AssetRoute.wantsPatch(List.of())).isFalse();
  }
}
