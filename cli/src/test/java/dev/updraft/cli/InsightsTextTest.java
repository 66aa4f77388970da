package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code updraft insights} and {@code updraft devices get} print for the routes' documented JSON. */
class InsightsTextTest {

  static JsonNode json(String s) throws Exception {
    return Api.JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void printsOneRowPerPlatformAndTheTotal() throws Exception {
    JsonNode r = json("{'appId':'demo','groupId':'g1','asOf':'2026-11-30T12:34:00Z','since24h':'2026-11-29T13:00:00Z',"
        + "'since7d':'2026-11-23T13:00:00Z','platforms':["
        + "{'platform':'ios','updateId':'0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00','devicesNow':40,'launches24h':120,'launches7d':610,"
        + "'failureReports24h':6,'failureReports7d':9,'failedDevices':5,'receivedDevices':118,'failureRatePercent':4.237},"
        + "{'platform':'android','updateId':'7e1d9c8b-6a5f-4e3d-9c2b-1a0f9e8d7c00','devicesNow':0,'launches24h':0,'launches7d':0,"
        + "'failureReports24h':0,'failureReports7d':0,'failedDevices':0,'receivedDevices':0,'failureRatePercent':null}],"
        + "'total':{'platform':null,'updateId':null,'devicesNow':40,'launches24h':120,'launches7d':610,'failureReports24h':6,"
        + "'failureReports7d':9,'failedDevices':5,'receivedDevices':118,'failureRatePercent':4.237}}");
    String[] lines = InsightsText.group(r).split("\n");
    assertThat(lines[0]).isEqualTo("update group g1 of app demo, as of 2026-11-30T12:34:00Z");
    assertThat(lines[2]).startsWith("PLATFORM  UPDATE").contains("DEVICES NOW").contains("FAILURE RATE");
    assertThat(lines[3].split("\\s+"))
        .containsExactly("ios", "0b6c2f0e-9f3a-4c1e-8d7b-5a4e3c2b1a00", "40", "120", "610", "6/9", "5", "118", "4.2", "%");
    assertThat(lines[4].split("\\s+")).containsExactly("android", "7e1d9c8b-6a5f-4e3d-9c2b-1a0f9e8d7c00", "0", "0", "0", "0/0", "0", "0", "-");
    assertThat(lines[5].split("\\s+")).containsExactly("all", "40", "120", "610", "6/9", "5", "118", "4.2", "%");
    assertThat(lines).hasSize(6);
  }

  @Test
  void printsTheHoursInWhichSomethingHappenedWithTheGuardsThresholdAndTotals() throws Exception {
    StringBuilder ios = new StringBuilder();
    StringBuilder android = new StringBuilder();
    java.time.Instant since = java.time.Instant.parse("2026-11-23T13:00:00Z");
    for (int i = 0; i < 168; i++) {
      String hour = since.plusSeconds(3600L * i).toString();
      long devices = i >= 165 ? 2 : 1; // one device from before the window, one more at hour 165
      long failed = i >= 166 ? 1 : 0;
      long launches = i == 165 ? 7 : i == 167 ? 5 : 0;
      ios.append(i == 0 ? "" : ",").append("{'hour':'").append(hour).append("','launches':").append(launches).append(",'served':").append(i == 165 ? 2 : 0)
          .append(",'failureReports':").append(i == 166 ? 1 : 0).append(",'devices':").append(devices).append(",'failedDevices':").append(failed)
          .append(",'failureRatePercent':").append(100.0 * failed / devices).append('}');
      android.append(i == 0 ? "" : ",").append("{'hour':'").append(hour)
          .append("','launches':0,'served':0,'failureReports':0,'devices':0,'failedDevices':0,'failureRatePercent':null}");
    }
    JsonNode r = json("{'appId':'demo','groupId':'g1','asOf':'2026-11-30T12:34:00Z','since':'2026-11-23T13:00:00Z','hours':168,"
        + "'maxFailureRatePercent':2.5,'platforms':[{'platform':'ios','updateId':'u-ios','points':[" + ios + "]},"
        + "{'platform':'android','updateId':'u-android','points':[" + android + "]}]}");
    String[] lines = InsightsText.hourly(r).split("\n");
    assertThat(lines[0]).isEqualTo("update group g1 of app demo, hour by hour from 2026-11-23T13:00:00Z to 2026-11-30T12:34:00Z");
    assertThat(lines[1]).isEqualTo("rollout guard: reverts above 2.5 % failure rate");
    assertThat(lines[2]).startsWith("HOUR (UTC)").contains("LAUNCHES", "SERVED", "FAILURE REPORTS", "DEVICES", "FAILED", "FAILURE RATE");
    assertThat(lines[3].split("\\s+")).containsExactly("2026-11-23", "13:00", "ios", "0", "0", "0", "1", "0", "0.0", "%");
    assertThat(lines[4].split("\\s+")).containsExactly("2026-11-30", "10:00", "ios", "7", "2", "0", "2", "0", "0.0", "%");
    assertThat(lines[5].split("\\s+")).containsExactly("2026-11-30", "11:00", "ios", "0", "0", "1", "2", "1", "50.0", "%");
    assertThat(lines[6].split("\\s+")).containsExactly("2026-11-30", "12:00", "ios", "5", "0", "0", "2", "1", "50.0", "%");
    assertThat(lines[7]).isEqualTo("ios: 12 launches, 2 served, 1 failure reports; 2 devices, 1 failed (50.0 %) at the end");
    assertThat(lines[8]).isEqualTo("android: 0 launches, 0 served, 0 failure reports; 0 devices, 0 failed (-) at the end");
    assertThat(lines).hasSize(9);
  }

  @Test
  void printsAChannelsSplitAndItsUpdates() throws Exception {
    JsonNode r = json("{'appId':'demo','channel':'production','asOf':'2026-11-30T12:34:00Z','devices':40,'embeddedDevices':8,"
        + "'otaDevices':30,'unknownDevices':2,'since7d':'2026-11-23T13:00:00Z','launches7d':500,'embeddedLaunches7d':90,"
        + "'otaLaunches7d':410,'updates':[{'platform':'ios','updateId':'u1','devices':18,'embeddedDevices':0,'otaDevices':18,"
        + "'sharePercent':45.0},{'platform':'ios','updateId':null,'devices':2,'embeddedDevices':0,'otaDevices':0,'sharePercent':5.0}]}");
    String[] lines = InsightsText.channel(r).split("\n");
    assertThat(lines[1]).isEqualTo("40 devices last checked in on it: 30 over the air, 8 on their embedded bundle, 2 reported no update");
    assertThat(lines[2]).isEqualTo("launches since 2026-11-23T13:00:00Z: 500 (410 over the air, 90 embedded)");
    assertThat(lines[4].split("\\s+")).containsExactly("ios", "u1", "18", "0", "18", "45.0", "%");
    assertThat(lines[5]).contains("(none reported)");
  }

  @Test
  void printsTheExplanationFirstThenWhatTheDeviceReportedAndWasServed() throws Exception {
    JsonNode d = json("{'appId':'demo','clientId':'d1','platform':'ios','runtimeVersion':'1.0.0','channel':'production',"
        + "'currentUpdateId':'emb','embeddedUpdateId':'emb','source':'embedded','failedUpdateIds':['u2','u1'],'fatalError':null,"
        + "'fatalErrorAt':null,'firstSeen':'2026-11-30T09:00:00Z','lastSeen':'2026-11-30T12:30:00Z','checkIns':7,"
        + "'lastCheckInId':'c7','edgeId':'edge-1','served':{'outcome':'noUpdate','reason':'update-previously-failed',"
        + "'branch':'main','inBranchRollout':true,'rolloutBucket':417,'updateId':null,'groupId':null},"
        + "'explanation':'channel \\'production\\' → branch \\'main\\' → no update'}");
    String[] lines = InsightsText.device(d).split("\n");
    assertThat(lines[0]).isEqualTo("channel \"production\" → branch \"main\" → no update");
    assertThat(lines[1]).isEmpty();
    assertThat(InsightsText.device(d))
        .contains("runs              emb (its embedded bundle)")
        .contains("reported failed   u2, u1")
        .contains("last fatal error  none")
        .contains("check-ins         7")
        .contains("served            noUpdate (update-previously-failed)\n")
        .contains("filters sent      none (the device keeps the filters it stored)\n")
        .contains("branch            main (via the channel's branch rollout)")
        .contains("rollout bucket    417 of 0-9999");
  }

  @Test
  void printsOneLinePerRefusalSummary() throws Exception {
    JsonNode r = json("{'appId':'demo','items':[{'reason':'missing-channel','runtimeVersion':'1.0.0','embeddedUpdateId':null,"
        + "'devices':1204,'requests':5120,'firstSeen':'2026-11-30T10:00:00Z','lastSeen':'2026-11-30T12:00:00Z',"
        + "'summary':'1,204 devices on runtime 1.0.0 send no channel'}]}");
    assertThat(InsightsText.refusals(r))
        .isEqualTo("1,204 devices on runtime 1.0.0 send no channel  (missing-channel, last 2026-11-30T12:00:00Z)");
    assertThat(InsightsText.refusals(json("{'appId':'demo','items':[]}"))).isEqualTo("no refused requests");
  }

  @Test
  void refusesAmbiguousOrIncompleteInvocations() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    PrintStream o = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    Map<String, String> env = Map.of("UPDRAFT_TOKEN", "t");
    assertThat(Cli.run(new String[] {"insights", "--app", "a"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("give exactly one of --update GROUP, --channel C or --refused");
    assertThat(Cli.run(new String[] {"insights", "--app", "a", "--update", "g", "--channel", "c"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(Cli.run(new String[] {"insights", "--app", "a", "--refused", "--channel", "c"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(Cli.run(new String[] {"apps", "update", "a"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("give exactly one of --default-channel C or --no-default-channel");
    assertThat(Cli.run(new String[] {"keys", "retire", "--app", "a"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--key-id is required");
    assertThat(Cli.run(new String[] {"devices", "get", "--app", "a"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--client-id is required");
    assertThat(Cli.run(new String[] {"devices", "list", "--app", "a"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown devices subcommand 'list'");
    assertThat(Cli.run(new String[] {"insights", "--app", "a", "--update", "g", "--platform", "ios"}, env, o, e, ms -> {}, false)).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown flag for insights: --platform");
  }
}
