package dev.updraft.testing.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.protocol.ClientSelectionPolicy.Client;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Outcome;
import dev.updraft.testing.protocol.ClientSelectionPolicy.Update;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The client's rules as expo-updates' code states them, on hand-made updates. */
class ClientSelectionPolicyTest {
  private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");
  private static final Update EMBEDDED = Update.embedded("emb", T, "1.0.0");

  private static String manifest(String id, Instant createdAt, String branch) {
    return "{\"id\":\"" + id + "\",\"createdAt\":\"" + createdAt + "\",\"runtimeVersion\":\"1.0.0\",\"metadata\":"
        + (branch == null ? "{}" : "{\"branchName\":\"" + branch + "\"}") + "}";
  }

  @Test
  void shouldReadOnlyStringNumberAndBooleanMembersOfTheFilters() {
    assertThat(ClientSelectionPolicy.filters("branchname=\"main\", n=1, b=?1, t=tok, bytes=:AQ==:"))
        .containsOnlyKeys("branchname", "n", "b").containsEntry("branchname", "main").containsEntry("b", true);
    assertThat(ClientSelectionPolicy.filters(null)).isNull();
    assertThat(ClientSelectionPolicy.filters("not a dictionary ,,,")).isNull();
  }

  @Test
  void shouldMatchFiltersByLowerCaseKeyAndLetAMissingKeyPass() {
    Map<String, Object> main = ClientSelectionPolicy.filters("branchname=\"main\"");
    assertThat(ClientSelectionPolicy.matchesFilters(Update.fromManifest(manifest("a", T, "main")), main)).isTrue();
    assertThat(ClientSelectionPolicy.matchesFilters(Update.fromManifest(manifest("a", T, "beta")), main)).isFalse();
    assertThat(ClientSelectionPolicy.matchesFilters(Update.fromManifest(manifest("a", T, null)), main)).isTrue();
    assertThat(ClientSelectionPolicy.matchesFilters(EMBEDDED, main)).isTrue();
  }

  @Test
  void shouldLoadAnOlderUpdateOnlyWhenTheRunningOneFailsTheFilters() {
    Update running = Update.fromManifest(manifest("b", T.plusSeconds(60), "beta"));
    Update older = Update.fromManifest(manifest("a", T.plusSeconds(1), "main"));
    assertThat(ClientSelectionPolicy.shouldLoadNewUpdate(older, running, null)).isFalse();
    assertThat(ClientSelectionPolicy.shouldLoadNewUpdate(older, running, Map.of("branchname", "main"))).isTrue();
    assertThat(ClientSelectionPolicy.shouldLoadNewUpdate(older, running, Map.of("branchname", "beta"))).isFalse();
  }

  @Test
  void shouldRollBackWhenTheDirectiveIsNewerOrTheRunningUpdateFailsTheFilters() {
    Update running = Update.fromManifest(manifest("b", T.plusSeconds(60), "beta"));
    assertThat(ClientSelectionPolicy.shouldLoadRollBackToEmbedded(T.plusSeconds(120), EMBEDDED, running, null)).isTrue();
    assertThat(ClientSelectionPolicy.shouldLoadRollBackToEmbedded(T.plusSeconds(30), EMBEDDED, running, null)).isFalse();
    assertThat(ClientSelectionPolicy.shouldLoadRollBackToEmbedded(T.plusSeconds(30), EMBEDDED, running, Map.of("branchname", "main")))
        .isTrue();
  }

  @Test
  void shouldNeverLaunchAnUpdateThatFailedAndReportIt() {
    Client c = new Client(EMBEDDED);
    assertThat(c.check("branchname=\"main\"", manifest("u1", T.plusSeconds(1), "main"), null)).isEqualTo(Outcome.UPDATE_AVAILABLE);
    assertThat(c.coldStart().id()).isEqualTo("u1");
    assertThat(c.crashOnLaunch()).isEqualTo(EMBEDDED);
    assertThat(c.recentFailedUpdateIds()).containsExactly("u1");
    assertThat(c.recentFailedUpdateIdsHeader()).isEqualTo("\"u1\"");
    assertThat(c.check("branchname=\"main\"", manifest("u1", T.plusSeconds(1), "main"), null)).isEqualTo(Outcome.UPDATE_PREVIOUSLY_FAILED);
    assertThat(c.coldStart()).isEqualTo(EMBEDDED);
    assertThat(c.check("branchname=\"main\"", manifest("u2", T.plusSeconds(2), "beta"), null))
        .isEqualTo(Outcome.MANIFEST_FAILS_ITS_OWN_FILTERS);
    assertThat(c.storedFilters()).as("nothing stored from an invalid answer").isEqualTo(Map.of("branchname", "main"));
    assertThat(List.of(c.check(null, null, "{\"type\":\"noUpdateAvailable\"}"))).containsExactly(Outcome.NO_UPDATE_AVAILABLE_ON_SERVER);
  }
}
