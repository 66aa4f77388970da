package dev.updraft.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FlagTableTest {
  private static final FlagTable.Builder T = FlagTable.builder();
  private static final Flag<Integer> PARTITIONS = T.integer("events-partitions", 3, 1, 1000, "partitions", "Partitions of the log.");
  private static final Flag<Duration> WINDOW =
      T.duration("auth-failure-window", Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofDays(1), "The throttle's window.");
  private static final Flag<Boolean> PATH_STYLE = T.bool("s3-path-style", false, "Path-style addressing.");
  private static final Flag<String> STORAGE = T.choice("storage", "local", "Where assets go.", "local", "s3");
  private static final Flag<Path> KEYS = T.path("key-store-dir", "`<data-dir>/keys`", "Where keys are kept.");
  private static final Flag<Long> MAX = T.bytes("max-request-bytes", 8L * 1024 * 1024, 65536, 1L << 30, "Largest body.");
  private static final Flag<String> PREFIX = T.text("topic-prefix", "", "Put in front of topic names.");
  private static final FlagTable TABLE = T.build();

  private static Settings settings(Map<String, String> flags, Map<String, String> env) {
    return Settings.of(flags, env);
  }

  @Test
  void flagsNotGivenTakeTheDeclaredDefaults() {
    Settings none = settings(Map.of(), Map.of());
    assertThat(PARTITIONS.read(none)).isEqualTo(3);
    assertThat(WINDOW.read(none)).isEqualTo(Duration.ofMinutes(1));
    assertThat(PATH_STYLE.read(none)).isFalse();
    assertThat(STORAGE.read(none)).isEqualTo("local");
    assertThat(KEYS.read(none)).isNull();
    assertThat(MAX.read(none)).isEqualTo(8388608L);
    assertThat(PREFIX.read(none)).isEmpty();
  }

  @Test
  void aFlagWinsOverItsEnvironmentVariableWhichWinsOverTheDefault() {
    assertThat(PARTITIONS.read(settings(Map.of(), Map.of("UPDRAFT_EVENTS_PARTITIONS", "7")))).isEqualTo(7);
    assertThat(PARTITIONS.read(settings(Map.of("events-partitions", "9"), Map.of("UPDRAFT_EVENTS_PARTITIONS", "7")))).isEqualTo(9);
    assertThat(WINDOW.read(Settings.parse(new String[] {"--auth-failure-window", "30s"}, Map.of()))).isEqualTo(Duration.ofSeconds(30));
    assertThat(PATH_STYLE.read(Settings.parse(new String[] {"--s3-path-style"}, Map.of()))).isTrue();
    assertThat(PARTITIONS.env()).isEqualTo("UPDRAFT_EVENTS_PARTITIONS");
  }

  @Test
  void aBadValueIsRefusedNamingTheFlagItsVariableAndTheValue() {
    assertThatThrownBy(() -> PARTITIONS.read(settings(Map.of("events-partitions", "lots"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--events-partitions (UPDRAFT_EVENTS_PARTITIONS)").hasMessageContaining("'lots'");
    assertThatThrownBy(() -> PARTITIONS.read(settings(Map.of(), Map.of("UPDRAFT_EVENTS_PARTITIONS", "0"))))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--events-partitions").hasMessageContaining("between 1 and 1000: got 0");
    assertThatThrownBy(() -> WINDOW.read(settings(Map.of("auth-failure-window", "2d"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessage("--auth-failure-window (UPDRAFT_AUTH_FAILURE_WINDOW) must be between 1s and 1d: got 2d");
    assertThatThrownBy(() -> WINDOW.read(settings(Map.of("auth-failure-window", "soon"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--auth-failure-window").hasMessageContaining("'soon'");
    assertThatThrownBy(() -> STORAGE.read(settings(Map.of("storage", "tape"), Map.of())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("--storage").hasMessageContaining("local, s3").hasMessageContaining("'tape'");
  }

  @Test
  void aFlagNotInTheTableIsRefusedByName() {
    assertThatThrownBy(() -> TABLE.rejectUnknown(settings(Map.of("event-partitions", "3"), Map.of()), Set.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unknown flag --event-partitions");
    TABLE.rejectUnknown(settings(Map.of("events-partitions", "3", "guard-interval", "1s"), Map.of()), Set.of("guard-interval"));
  }

  @Test
  void helpDescribesEveryFlagWithItsVariableKindDefaultAndMeaning() {
    String help = TABLE.help("usage: updraft test [--flag value ...]");
    assertThat(help).startsWith("usage: updraft test");
    assertThat(help).contains("--events-partitions  UPDRAFT_EVENTS_PARTITIONS\n      partitions (1–1000); default: 3\n      Partitions of the log.");
    assertThat(help).contains("--auth-failure-window  UPDRAFT_AUTH_FAILURE_WINDOW\n      duration (1s–1d); default: 1m");
    assertThat(help).contains("--max-request-bytes  UPDRAFT_MAX_REQUEST_BYTES\n      bytes (65536–1073741824); default: 8388608 (8 MiB)");
    assertThat(help).contains("--key-store-dir  UPDRAFT_KEY_STORE_DIR\n      path; default: <data-dir>/keys");
    for (Flag<?> f : TABLE.flags()) {
      assertThat(help).contains("--" + f.name() + "  " + f.env());
    }
    assertThat(TABLE.names()).containsExactly(
        "events-partitions", "auth-failure-window", "s3-path-style", "storage", "key-store-dir", "max-request-bytes", "topic-prefix");
  }

  @Test
  void theMarkdownTableHasOneRowPerFlag() {
    assertThat(TABLE.markdown()).startsWith("| Flag | Environment | Value | Default | Meaning |\n|---|---|---|---|---|\n")
        .contains("| `--storage` | `UPDRAFT_STORAGE` | local \\| s3 | `local` | Where assets go. |\n")
        .contains("| `--topic-prefix` | `UPDRAFT_TOPIC_PREFIX` | text | none | Put in front of topic names. |\n");
    assertThat(TABLE.markdown().lines().filter(l -> l.startsWith("| `--"))).hasSize(TABLE.flags().size());
  }

  @Test
  void aNameDeclaredTwiceOrWithoutMeaningIsABug() {
    FlagTable.Builder b = FlagTable.builder();
    b.bool("x", false, "X.");
    assertThatThrownBy(() -> b.bool("x", true, "X again.")).hasMessageContaining("--x is declared twice");
    assertThatThrownBy(() -> b.bool("y", true, " ")).hasMessageContaining("--y has no meaning");
    assertThatThrownBy(() -> FlagTable.builder().include(TABLE).include(TABLE)).hasMessageContaining("declared twice");
  }

  @Test
  void helpIsWrappedAndPlain() {
    FlagTable t = FlagTable.builder()
        .include(FlagTable.builder().build())
        .build();
    assertThat(t.flags()).isEmpty();
    FlagTable.Builder b = FlagTable.builder();
    b.text("cors-origin", null, "Exact origins (`https://a.example`) as in [Control plane transport](#control-plane-transport) "
        + "word word word word word word word word word word word word word word word word word word word word word word word.");
    String help = b.build().help("usage");
    assertThat(help).contains("Exact origins (https://a.example) as in Control plane transport word").doesNotContain("`").doesNotContain("](#");
    assertThat(help.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(100));
  }
}
