package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadCommandTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return LoadCommand.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void helpAfterASubcommandPrintsTheUsageInsteadOfRunning() {
    assertThat(run("run", "--target", "http://127.0.0.1:1", "--help")).isEqualTo(LoadCommand.EXIT_OK);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("run flags (defaults in brackets):", "--knee-from");
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
  }

  @Test
  void anUnknownFlagIsAUsageErrorNamingIt() {
    assertThat(run("run", "--targte", "http://127.0.0.1:1")).isEqualTo(LoadCommand.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--targte");
  }

  @Test
  void aBaselineCpuListThatTasksetWouldRefuseIsAUsageErrorBeforeAnythingRuns() {
    assertThat(run("run", "--target", "http://127.0.0.1:1", "--baseline", "--baseline-cpus", "1;rm")).isEqualTo(LoadCommand.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--baseline-cpus", "1;rm");
  }

  @Test
  void aServerPrerunThatIsNotADurationIsAUsageErrorNamingTheFlag() {
    assertThat(run("run", "--target", "http://127.0.0.1:1", "--server-prerun", "-30s")).isEqualTo(LoadCommand.EXIT_USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--server-prerun", "'-30s'");
  }

  @Test
  void theHelpDescribesTheServerPrerun() {
    assertThat(run("--help")).isEqualTo(LoadCommand.EXIT_OK);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("--server-prerun D [0s]");
  }
}
