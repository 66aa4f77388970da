package dev.updraft.controlplane.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ValidateTest {
  @Test
  void keepsRuntimeVersionsExactlyAsGivenButRefusesWhatAHeaderCannotCarry() throws Exception {
    assertThat(Validate.runtimeVersion("rv", "exposdk:50.0.0")).isEqualTo("exposdk:50.0.0");
    assertThat(Validate.runtimeVersion("rv", "1.0.0 (42)")).isEqualTo("1.0.0 (42)");
    assertThatThrownBy(() -> Validate.runtimeVersion("rv", "")).hasMessageContaining("empty");
    assertThatThrownBy(() -> Validate.runtimeVersion("rv", " 1.0")).hasMessageContaining("leading or trailing");
    assertThatThrownBy(() -> Validate.runtimeVersion("rv", "1.0\n")).hasMessageContaining("printable ASCII");
  }

  @Test
  void acceptsSlugAppIdsAndBranchNamesWithSlashes() throws Exception {
    assertThat(Validate.appId("my-app-2")).isEqualTo("my-app-2");
    assertThatThrownBy(() -> Validate.appId("-x")).hasMessageContaining("slug");
    assertThatThrownBy(() -> Validate.appId("MyApp")).hasMessageContaining("slug");
    assertThat(Validate.branch("branch", "feature/login")).isEqualTo("feature/login");
    assertThatThrownBy(() -> Validate.branch("branch", "/x")).hasMessageContaining("branch");
    assertThatThrownBy(() -> Validate.channel("a/b")).hasMessageContaining("channel");
  }
}
