package dev.updraft.systemtests.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.support.CliRunner;
import dev.updraft.systemtests.support.Http;
import dev.updraft.systemtests.support.Stack;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A retention policy keeping 3 groups on a branch with 300 leaves those 3 and the protected ones (the pinned
 * groups: one pinned early, which the control plane held past its window because of the pin, and one among
 * its newest 10; the control of a running rollout is covered by the unit test), as ordinary
 * {@code updates.deleted} events by actor {@code retention} of the groups the control plane still holds (its
 * newest 10 per line and the pinned ones; older ones it no longer holds); the edge serves what it served
 * before and its image no longer holds the deleted groups. Real control plane, edge, Kafka and PostgreSQL.
 */
@ExtendWith(RealInfrastructure.class)
class RetentionIT {
  static final String APP = "keep10";
  private static final Pattern ID = Pattern.compile("\"id\":\"([0-9a-f-]{36})\"");
  private static final Pattern GROUPS = Pattern.compile("^updraft_edge_image_groups\\S*\\s+([0-9.]+)", Pattern.MULTILINE);

  @TempDir Path data;

  @Test
  void keepThreeOnABranchWithThreeHundredGroupsLeavesThreeAndThePinnedOnes(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, data)) {
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Api api = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", APP);
      JsonNode first = cli.json("publish", "--app", APP, "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString());
      List<String> groups = new ArrayList<>();
      groups.add(first.get("groupId").asText());
      for (int i = 1; i < 300; i++) {
        Api.Resp r = api.call("POST", "/v1/apps/" + APP + "/rollbacks",
            Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", groups.get(0)));
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        groups.add(r.json().get("groupId").asText());
        if (i == 5) { // pinned while among the newest 10 of its line (Retention.CONTROL_PLANE_WINDOW), then held past them
          assertThat(api.call("PUT", "/v1/apps/" + APP + "/updates/" + groups.get(5) + "/pin", null).status()).isEqualTo(200);
        }
      }
      String early = groups.get(5);
      String pinned = groups.get(293);
      assertThat(api.call("PUT", "/v1/apps/" + APP + "/updates/" + pinned + "/pin", null).status()).isEqualTo(200);
      assertThat(api.call("GET", "/v1/apps/" + APP + "/updates/" + early, null).status()).as("held past the window").isEqualTo(200);
      awaitEdgeGroups(stack, 7); // the edge holds the newest 7 of a line
      String servedBefore = served(stack);

      Api.Resp set = api.call("PUT", "/v1/apps/" + APP + "/retention", Map.of("branch", "main", "keep", 3));
      assertThat(set.status()).as(set.toString()).isEqualTo(200);

      List<String> listed = listed(api, APP);
      List<String> expected = new ArrayList<>(groups.subList(297, 300));
      java.util.Collections.reverse(expected);
      expected.add(pinned);
      expected.add(early);
      assertThat(listed).containsExactlyElementsOf(expected);
      JsonNode audit = api.call("GET", "/v1/apps/" + APP + "/audit?limit=200", null).json();
      assertThat(audit.toString()).contains("updates.deleted").contains("\"actor\":\"retention\"");
      assertThat(api.call("GET", "/v1/apps/" + APP + "/updates/" + groups.get(100), null).status()).isEqualTo(404);

      awaitEdgeGroups(stack, 4); // 297..299 and the pinned 293 of the 7 it held
      assertThat(served(stack)).as("the edge serves what it served before").isEqualTo(servedBefore);
    }
  }

  @Test
  void anUnpinnedGroupGoesWhenTheCliAppliesThePoliciesNotBefore(Infra infra) throws Exception {
    try (Stack stack = Stack.start(infra, data)) {
      String app = "apply-now";
      CliRunner cli = new CliRunner(stack.controlUrl(), Stack.ADMIN_TOKEN);
      Api api = new Api(stack.controlUrl(), Stack.ADMIN_TOKEN);
      cli.json("apps", "create", app);
      String g1 = cli.json("publish", "--app", app, "--branch", "main", "--runtime-version", "1.0.0", "--dist", Fixtures.update1().toString())
          .get("groupId").asText();
      List<String> groups = new ArrayList<>(List.of(g1));
      for (int i = 0; i < 2; i++) {
        Api.Resp r = api.call("POST", "/v1/apps/" + app + "/rollbacks", Map.of("branch", "main", "runtimeVersion", "1.0.0", "toGroupId", g1));
        assertThat(r.status()).as(r.toString()).isEqualTo(201);
        groups.add(r.json().get("groupId").asText());
      }
      cli.json("updates", "pin", "--app", app, "--update", g1);
      CliRunner.Result set = cli.run("retention", "set", "--app", app, "--keep", "1");
      assertThat(set.status()).as(set.err()).isZero();
      assertThat(set.out()).contains("app-wide: keep 1").contains("pinned: 1");
      assertThat(listed(api, app)).as("the newest and the pinned one").containsExactly(groups.get(2), g1);

      cli.json("updates", "unpin", "--app", app, "--update", g1);
      assertThat(listed(api, app)).as("unpinning deletes nothing by itself").containsExactly(groups.get(2), g1);
      CliRunner.Result applied = cli.run("retention", "apply", "--app", app);
      assertThat(applied.status()).as(applied.err()).isZero();
      assertThat(applied.out().strip()).isEqualTo("deleted 1 group in 1 event");
      assertThat(listed(api, app)).containsExactly(groups.get(2));
      JsonNode again = cli.json("retention", "apply", "--app", app);
      assertThat(again.get("groupsDeleted").asInt()).as("nothing left to delete").isZero();

      CliRunner.Result misuse = cli.run("retention", "apply", "--app", app, "--keep", "3");
      assertThat(misuse.status()).as("a usage error").isEqualTo(2);
      assertThat(misuse.err()).contains("retention apply applies every policy of the app");
    }
  }

  private static List<String> listed(Api api, String app) {
    List<String> out = new ArrayList<>();
    for (JsonNode g : api.call("GET", "/v1/apps/" + app + "/updates?limit=200", null).json().get("items")) {
      out.add(g.get("groupId").asText());
    }
    return out;
  }

  /** The update id an iOS device on channel main is served. */
  static String served(Stack stack) throws Exception {
    HttpResponse<String> r = Http.get(stack.edgeUrl() + "/apps/" + APP + "/manifest", "expo-platform", "ios", "expo-runtime-version", "1.0.0",
        "expo-channel-name", "main", "expo-protocol-version", "1", "accept", "multipart/mixed");
    assertThat(r.statusCode()).isEqualTo(200);
    Matcher m = ID.matcher(r.body());
    assertThat(m.find()).as(r.body()).isTrue();
    return m.group(1);
  }

  /** Waits until the edge's image holds exactly {@code n} groups (its gauge). */
  static void awaitEdgeGroups(Stack stack, int n) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    String last = null;
    while (System.nanoTime() < deadline) {
      Matcher m = GROUPS.matcher(Http.get(stack.edgeUrl() + "/metrics").body());
      last = m.find() ? m.group(1) : null;
      if (last != null && (int) Double.parseDouble(last) == n) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("edge image holds " + last + " groups, not " + n);
  }
}
