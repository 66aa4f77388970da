package dev.updraft.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.common.Flag;
import dev.updraft.common.FlagTable;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.ingester.IngesterConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code updraft control-plane|edge|ingest|dev --help} describes every flag the command accepts. */
class ServerHelpTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private String help(String... args) {
    out.reset();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    assertThat(Updraft.run(args, Map.of(), o, o)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyServersHelpDescribesEveryFlagItAccepts() {
    Set<String> controlPlane = new HashSet<>(ControlPlaneConfig.FLAGS);
    controlPlane.addAll(InsightsExtension.FLAGS);
    Map<String, Set<String>> accepted =
        Map.of("control-plane", controlPlane, "edge", EdgeConfig.FLAGS, "ingest", IngesterConfig.FLAGS, "dev", withoutHelp(DevConfig.FLAGS));
    for (Map.Entry<String, Set<String>> e : accepted.entrySet()) {
      String help = help(e.getKey(), "--help");
      assertThat(help).startsWith("usage: updraft " + e.getKey() + " [--flag value ...]");
      assertThat(help(("help " + e.getKey()).split(" "))).isEqualTo(help);
      FlagTable table = FlagReferenceDocTest.table(e.getKey());
      assertThat(table.names()).as("updraft %s: the flags its configuration accepts are its table's", e.getKey())
          .containsExactlyInAnyOrderElementsOf(e.getValue());
      for (String name : e.getValue()) {
        Flag<?> f = table.flag(name);
        assertThat(help).as("updraft %s --help describes --%s", e.getKey(), name)
            .contains("\n  --" + name + "  " + f.env() + "\n      ").contains(f.shownDefault().replace("`", ""));
      }
    }
  }

  @Test
  void helpSaysMeaningDefaultUnitAndVariable() {
    assertThat(help("control-plane", "--help"))
        .contains("  --events-partitions  UPDRAFT_EVENTS_PARTITIONS\n      partitions (1–1000); default: 3\n"
            + "      Partitions of updraft.events when the control plane creates it.\n")
        .contains("  --asset-encoding  UPDRAFT_ASSET_ENCODING\n      best | fast; default: best\n")
        .contains("  --guard-interval  UPDRAFT_GUARD_INTERVAL\n      duration; default: 30s\n");
    assertThat(help("edge", "--help")).contains("  --max-stale  UPDRAFT_MAX_STALE\n");
    assertThat(help("ingest", "--help")).contains("  --ingest-linger  UPDRAFT_INGEST_LINGER\n      duration; default: 250ms\n");
    assertThat(help("dev", "--help")).contains("  --metrics-token  UPDRAFT_METRICS_TOKEN\n").contains("  --s3-bucket  UPDRAFT_S3_BUCKET\n");
  }

  private static Set<String> withoutHelp(Set<String> flags) {
    Set<String> s = new HashSet<>(flags);
    s.remove("help");
    return s;
  }
}
