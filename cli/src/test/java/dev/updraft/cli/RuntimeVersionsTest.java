package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime version {@code publish} takes from expoConfig.json, computed as expo's config plugins do
 * ({@code Updates.getRuntimeVersion}, {@code getNativeVersion}: {@code version(buildNumber)},
 * {@code version(versionCode)}, defaults {@code 1.0.0} and {@code 1}).
 */
class RuntimeVersionsTest {
  static final Path FILE = Path.of("dist/expoConfig.json");

  static JsonNode json(String s) throws Exception {
    return Api.JSON.readTree(s.replace('\'', '"'));
  }

  static String ios(String config) throws Exception {
    return RuntimeVersions.resolve(json(config), "ios").value();
  }

  static String android(String config) throws Exception {
    return RuntimeVersions.resolve(json(config), "android").value();
  }

  static String settle(String config, String... platforms) throws Exception {
    return RuntimeVersions.settle(null, json(config), FILE, List.of(platforms), new PrintStream(new ByteArrayOutputStream()));
  }

  @Test
  void aLiteralRuntimeVersionIsTheRuntimeVersion() throws Exception {
    assertThat(ios("{'runtimeVersion':'2.1.0'}")).isEqualTo("2.1.0");
    assertThat(android("{'runtimeVersion':'2.1.0'}")).isEqualTo("2.1.0");
    assertThat(settle("{'runtimeVersion':'2.1.0'}", "ios", "android")).isEqualTo("2.1.0");
  }

  @Test
  void theRealExportsConfigSettlesIt() throws Exception {
    JsonNode config = Api.JSON.readTree(Files.readAllBytes(Fixtures.update1().resolve("expoConfig.json")));
    assertThat(RuntimeVersions.settle(null, config, FILE, List.of("ios", "android"), new PrintStream(new ByteArrayOutputStream())))
        .isEqualTo("1.0.0");
  }

  @Test
  void aPlatformsOwnRuntimeVersionWins() throws Exception {
    String c = "{'runtimeVersion':'1.0.0','ios':{'runtimeVersion':'1.0.1'}}";
    assertThat(ios(c)).isEqualTo("1.0.1");
    assertThat(android(c)).isEqualTo("1.0.0");
    assertThat(settle(c, "android")).isEqualTo("1.0.0");
    assertThat(settle(c, "ios")).isEqualTo("1.0.1");
    assertThat(android("{'android':{'runtimeVersion':{'policy':'appVersion'}},'version':'3.2.1'}")).isEqualTo("3.2.1");
    assertThat(ios("{'android':{'runtimeVersion':'9'},'runtimeVersion':'1'}")).isEqualTo("1");
  }

  @Test
  void theAppVersionPolicyIsTheVersion() throws Exception {
    assertThat(ios("{'version':'4.5.6','runtimeVersion':{'policy':'appVersion'}}")).isEqualTo("4.5.6");
    assertThat(android("{'version':'4.5.6','runtimeVersion':{'policy':'appVersion'}}")).isEqualTo("4.5.6");
    assertThat(ios("{'runtimeVersion':{'policy':'appVersion'}}")).as("expo's default version").isEqualTo("1.0.0");
  }

  @Test
  void theNativeVersionPolicyIsVersionAndBuildNumberOrVersionCode() throws Exception {
    String c = "{'version':'2.0.0','runtimeVersion':{'policy':'nativeVersion'},'ios':{'buildNumber':'13'},'android':{'versionCode':42}}";
    assertThat(ios(c)).isEqualTo("2.0.0(13)");
    assertThat(android(c)).isEqualTo("2.0.0(42)");
    assertThat(ios("{'runtimeVersion':{'policy':'nativeVersion'}}")).as("defaults").isEqualTo("1.0.0(1)");
    assertThat(android("{'runtimeVersion':{'policy':'nativeVersion'},'version':'2.0.0'}")).isEqualTo("2.0.0(1)");
    assertThat(ios("{'runtimeVersion':{'policy':'nativeVersion'},'version':'2.0.0','ios':{'version':'2.0.5','buildNumber':'7'}}"))
        .as("ios.version first, as IOSConfig.Version.getVersion").isEqualTo("2.0.5(7)");
    assertThat(android("{'runtimeVersion':{'policy':'nativeVersion'},'version':'2.0.0','android':{'versionCode':7.0}}")).isEqualTo("2.0.0(7)");
    // the same on both platforms: one group
    assertThat(settle("{'version':'2.0.0','runtimeVersion':{'policy':'nativeVersion'},'ios':{'buildNumber':'5'},'android':{'versionCode':5}}",
        "ios", "android")).isEqualTo("2.0.0(5)");
  }

  @Test
  void differentRuntimeVersionsPerPlatformAreRefusedWithTheCommandsThatWork() {
    String c = "{'version':'2.0.0','runtimeVersion':{'policy':'nativeVersion'},'ios':{'buildNumber':'13'},'android':{'versionCode':42}}";
    assertThatThrownBy(() -> settle(c, "ios", "android"))
        .isInstanceOfSatisfying(CliException.class, e -> assertThat(e.usage).isTrue())
        .hasMessageContaining("--runtime-version is required")
        .hasMessageContaining("gives ios 2.0.0(13) and android 2.0.0(42)")
        .hasMessageContaining("share one runtime version")
        .hasMessageContaining("--platform ios --runtime-version '2.0.0(13)', then --platform android --runtime-version '2.0.0(42)'");
  }

  @Test
  void policiesOnlyExpoComputesAreRefusedWithTheCommandThatPrintsTheValue() {
    for (String policy : new String[] {"fingerprint", "sdkVersion", "somethingNew"}) {
      assertThatThrownBy(() -> settle("{'sdkVersion':'57.0.0','runtimeVersion':{'policy':'" + policy + "'}}", "ios"))
          .as(policy)
          .isInstanceOfSatisfying(CliException.class, e -> assertThat(e.usage).isTrue())
          .hasMessageContaining("--runtime-version is required")
          .hasMessageContaining(policy)
          .hasMessageContaining("npx expo-updates runtimeversion:resolve --platform ios");
    }
    assertThatThrownBy(() -> settle("{'runtimeVersion':'file:fingerprint'}", "android"))
        .hasMessageContaining("fingerprint").hasMessageContaining("runtimeversion:resolve --platform android");
  }

  @Test
  void noRuntimeVersionInTheConfigOrNoConfigNeedsTheFlag() {
    assertThatThrownBy(() -> settle("{'version':'1.0.0'}", "ios")).hasMessageContaining("--runtime-version is required")
        .hasMessageContaining("sets no runtimeVersion");
    assertThatThrownBy(() -> settle("{'runtimeVersion':''}", "ios")).hasMessageContaining("sets no runtimeVersion");
    assertThatThrownBy(() -> settle("{'runtimeVersion':42}", "ios")).hasMessageContaining("neither a string nor");
    assertThatThrownBy(() -> RuntimeVersions.settle(null, null, FILE, List.of("ios"), new PrintStream(new ByteArrayOutputStream())))
        .isInstanceOfSatisfying(CliException.class, e -> assertThat(e.usage).isTrue())
        .hasMessageContaining("--runtime-version is required").hasMessageContaining("npx expo config --type public --json");
  }

  @Test
  void aFlagThatDisagreesWithTheConfigIsUsedWithAWarning() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertThat(RuntimeVersions.settle("2.0.0", json("{'runtimeVersion':'1.0.0'}"), FILE, List.of("ios"), e)).isEqualTo("2.0.0");
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("warning: ").contains("--runtime-version 2.0.0").contains("ios the runtime version 1.0.0");
    err.reset();
    assertThat(RuntimeVersions.settle("1.0.0", json("{'runtimeVersion':'1.0.0'}"), FILE, List.of("ios"), e)).isEqualTo("1.0.0");
    assertThat(RuntimeVersions.settle("1.0.0", json("{'runtimeVersion':{'policy':'fingerprint'}}"), FILE, List.of("ios"), e)).isEqualTo("1.0.0");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void aPolicyOnlyExpoComputesIsAskedOfExpoUpdatesPerPlatformAndPrinted() throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> asked = new java.util.ArrayList<>();
    RuntimeVersions.PolicyResolver expo = p -> {
      asked.add(p);
      return p.equals("ios") ? "aaa111" : "bbb222";
    };
    var got = RuntimeVersions.settleEach(null, json("{'runtimeVersion':{'policy':'fingerprint'}}"), FILE, List.of("android", "ios"),
        new PrintStream(err, true, StandardCharsets.UTF_8), expo);
    assertThat(got).containsExactly(java.util.Map.entry("android", "bbb222"), java.util.Map.entry("ios", "aaa111"));
    assertThat(asked).containsExactly("android", "ios");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("runtime version for android: bbb222", "runtime version for ios: aaa111");
    // a literal, appVersion or a given flag never asks expo-updates; no runtimeVersion at all is refused without asking
    asked.clear();
    assertThat(RuntimeVersions.settleEach(null, json("{'runtimeVersion':'1.0.0','ios':{'runtimeVersion':{'policy':'fingerprint'}}}"), FILE,
        List.of("android", "ios"), new PrintStream(err), expo)).containsExactly(java.util.Map.entry("android", "1.0.0"), java.util.Map.entry("ios", "aaa111"));
    assertThat(asked).containsExactly("ios");
    asked.clear();
    assertThat(RuntimeVersions.settleEach("9.9.9", json("{'runtimeVersion':{'policy':'fingerprint'}}"), FILE, List.of("ios"), new PrintStream(err), expo))
        .containsExactly(java.util.Map.entry("ios", "9.9.9"));
    assertThatThrownBy(() -> RuntimeVersions.settleEach(null, json("{'version':'1.0.0'}"), FILE, List.of("ios"), new PrintStream(err), expo))
        .hasMessageContaining("sets no runtimeVersion");
    assertThat(asked).isEmpty();
  }
}
