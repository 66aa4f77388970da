package dev.updraft.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Decoded;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventPayload;
import dev.updraft.load.check.ResponseCheck;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cost-of-scale event log: decodable with the real codec, gap-free per app, realistic bodies. */
class EventLogGeneratorTest {
  @TempDir Path dir;

  @Test
  void writesADecodableGapFreeLogOfTheRequestedShape() throws Exception {
    Path file = dir.resolve("events.jsonl");
    int exit = LoadCommand.run(new String[] {"events", "--apps", "3", "--channels", "2", "--runtime-versions", "2", "--updates", "2",
        "--assets-per-update", "5", "--out", file.toString()}, Map.of(), System.out, System.err);
    assertThat(exit).isZero();
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    // per app: 1 app.created + 2 channel.mapped + 2 channels x 2 runtimes x 2 updates = 11 events
    assertThat(lines).hasSize(33);
    Map<String, Long> lastSeq = new HashMap<>();
    int published = 0;
    for (String line : lines) {
      Decoded d = EventCodec.decode(line.getBytes(StandardCharsets.UTF_8));
      assertThat(d).as(line).isInstanceOf(Decoded.Known.class);
      var e = ((Decoded.Known) d).envelope();
      long prev = lastSeq.getOrDefault(e.appId(), 0L);
      assertThat(e.sequence()).as("sequence of %s", e.appId()).isEqualTo(prev + 1);
      lastSeq.put(e.appId(), e.sequence());
      if (e.payload() instanceof EventPayload.UpdatePublished u) {
        published++;
        assertThat(u.group().platforms()).hasSize(2);
        for (EventPayload.PlatformUpdate p : u.group().platforms()) {
          // the body is a manifest a client would accept
          byte[] body = p.body().getBytes(StandardCharsets.UTF_8);
          ResponseCheck.Answer a = new ResponseCheck(null).check(200, n -> n.equals("expo-protocol-version") ? "1"
              : n.equals("content-type") ? "application/json" : null, body, u.group().runtimeVersion(), false);
          assertThat(a.error()).as(a.detail()).isNull();
          assertThat(a.updateId()).isEqualTo(p.updateId());
          assertThat(p.assetKeys()).hasSize(6);
          assertThat(p.signature()).startsWith("sig=\"").contains("keyid=\"main\"");
          assertThat(body.length).isGreaterThan(1500);
        }
      }
    }
    assertThat(lastSeq).hasSize(3);
    assertThat(published).isEqualTo(24);
    // deterministic from the seed
    Path again = dir.resolve("again.jsonl");
    LoadCommand.run(new String[] {"events", "--apps", "3", "--channels", "2", "--runtime-versions", "2", "--updates", "2",
        "--assets-per-update", "5", "--out", again.toString()}, Map.of(), System.out, System.err);
    assertThat(Files.readAllLines(again)).isEqualTo(lines);
  }

  @Test
  void spreadsHistoricalPublishesOverEveryLineWithRolloutsAndAKey() throws Exception {
    Path file = dir.resolve("history.jsonl");
    int exit = LoadCommand.run(new String[] {"events", "--apps", "4", "--channels", "2", "--runtime-versions", "2", "--publishes", "100",
        "--rollout-every", "5", "--signing-key", "true", "--assets-per-update", "2", "--out", file.toString()}, Map.of(), System.out, System.err);
    assertThat(exit).isZero();
    int published = 0;
    int rollouts = 0;
    int finished = 0;
    int keys = 0;
    Map<String, String> activeRollout = new HashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      var e = ((Decoded.Known) EventCodec.decode(line.getBytes(StandardCharsets.UTF_8))).envelope();
      String lineKey;
      if (e.payload() instanceof EventPayload.UpdatePublished u) {
        published++;
        lineKey = e.appId() + "/" + u.group().branch() + "/" + u.group().runtimeVersion();
        assertThat(activeRollout).as("no publish on a line while its rollout runs").doesNotContainKey(lineKey);
        if (u.group().rollout() != null) {
          rollouts++;
          assertThat(u.group().rollout().controlGroupId()).isNotNull();
          activeRollout.put(lineKey, u.group().groupId());
        }
      } else if (e.payload() instanceof EventPayload.RolloutFinished f) {
        finished++;
        activeRollout.values().remove(f.groupId());
      } else if (e.payload() instanceof EventPayload.SigningKeyRegistered) {
        keys++;
      }
    }
    assertThat(published).isEqualTo(100); // 16 lines: 6 or 7 publishes each
    assertThat(rollouts).isEqualTo(16);
    assertThat(finished).isEqualTo(rollouts - activeRollout.size());
    assertThat(keys).isEqualTo(4);
  }

  @Test
  void kafkaNeedsAnExplicitFlag() {
    int exit = LoadCommand.run(new String[] {"events", "--apps", "1"}, Map.of("UPDRAFT_KAFKA_BOOTSTRAP", "127.0.0.1:1"), System.out, System.err);
    assertThat(exit).isEqualTo(LoadCommand.EXIT_USAGE);
  }
}
