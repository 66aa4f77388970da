package dev.updraft.controlplane.patches;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.ControlState;
import dev.updraft.controlplane.state.StateFold;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.AssetEvents.PatchesComputed;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The patch job's memory is bounded by bytes: a diff that would hold more than its budget (about 12 times
 * its larger bundle) is not made but skipped and counted, the group's work is still recorded (its devices
 * get the full bundle), and within the budget the same diff is made and kept.
 */
class PatchMemoryBudgetTest {
  @TempDir Path dir;

  /** Two publishes of one line whose launch bundles differ by a few lines; returns the state after both. */
  private ControlState published(LocalAssetStorage storage, byte[] base, byte[] target) throws Exception {
    ControlState s = ControlState.EMPTY;
    List<EventPayload> events = List.of(new AppCreated("Demo"), publish("g1", put(storage, base)), publish("g2", put(storage, target)));
    long seq = 1;
    for (EventPayload e : events) {
      s = StateFold.apply(s, new EventEnvelope(UUID.randomUUID(), e.type(), EventType.CURRENT_SCHEMA_VERSION, "demo", seq++,
          Instant.parse("2026-12-07T05:00:00Z"), "tok_1", e));
    }
    return s;
  }

  private String put(LocalAssetStorage storage, byte[] bytes) throws Exception {
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes);
    Path f = Files.write(Files.createTempFile(dir, "bundle", ".js"), bytes);
    String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
    storage.put("demo", HexFormat.of().formatHex(sha), f, md5, bytes.length, "application/javascript");
    return Base64.getUrlEncoder().withoutPadding().encodeToString(sha);
  }

  private static UpdatePublished publish(String id, String launchHash) {
    String body = "{\"id\":\"" + id + "-ios\",\"createdAt\":\"2026-12-07T05:00:00.000Z\",\"runtimeVersion\":\"1.0.0\",\"launchAsset\":{\"hash\":\""
        + launchHash + "\",\"key\":\"k-" + id + "\",\"contentType\":\"application/javascript\",\"url\":\"http://127.0.0.1:1/a\"},\"assets\":[],"
        + "\"metadata\":{},\"extra\":{}}";
    PlatformUpdate ios = new PlatformUpdate("ios", id + "-ios", "2026-12-07T05:00:00.000Z", body, null, "k-" + id, List.of("k-" + id));
    return new UpdatePublished(new UpdateGroup(id, UpdateGroup.KIND_UPDATE, "main", "1.0.0", "m", "abc", "idem-" + id, null, null,
        List.of(ios)));
  }

  private static byte[] bundle(int lines, String variant) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      b.append("function f").append(i).append("(x) { return x * ").append(i % 7 == 0 ? variant : "2").append(" + ").append(i).append("; }\n");
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Runs g2's job with {@code budget}; returns its tally and its recorded patches. */
  private Object[] run(long budget, byte[] base, byte[] target) throws Exception {
    LocalAssetStorage storage = new LocalAssetStorage(dir.resolve("assets-" + budget), () -> "http://127.0.0.1:1");
    ControlState s = published(storage, base, target);
    Files.createDirectories(dir.resolve("tmp"));
    GroupJob job = new GroupJob(storage, dir.resolve("tmp"), new GroupJob.Settings(true, false, 5, 32L << 20, true), budget);
    AppState app = s.app("demo");
    GroupJob.Tally tally = new GroupJob.Tally();
    List<EventPayload> events = job.run(s, app, app.group("g2"), Map.of(), Set.of(), tally);
    PatchesComputed pc = (PatchesComputed) events.get(events.size() - 1);
    return new Object[] {tally, pc};
  }

  @Test
  void aDiffOverTheBudgetIsSkippedAndCountedAndTheGroupStillRecorded() throws Exception {
    byte[] base = bundle(4_000, "3");
    byte[] target = bundle(4_000, "5");
    long larger = Math.max(base.length, target.length);

    Object[] within = run(12 * larger, base, target);
    GroupJob.Tally t = (GroupJob.Tally) within[0];
    assertThat(t.patchesKept).isEqualTo(1);
    assertThat(t.patchesSkipped).isZero();
    assertThat(((PatchesComputed) within[1]).patches()).hasSize(1);

    Object[] over = run(12 * larger - 1, base, target);
    t = (GroupJob.Tally) over[0];
    assertThat(t.patchesSkipped).isEqualTo(1);
    assertThat(t.patchesKept).isZero();
    assertThat(t.diffNanos).isZero(); // no diff was made: nothing held for it
    assertThat(((PatchesComputed) over[1]).groupId()).isEqualTo("g2"); // the work is recorded: no retry, the full bundle is served
    assertThat(((PatchesComputed) over[1]).patches()).isEmpty();
  }

  @Test
  void aBaseLargerThanTheTargetCountsTowardTheBudget() throws Exception {
    byte[] base = bundle(8_000, "3");
    byte[] target = bundle(4_000, "5");
    Object[] over = run(12L * base.length - 1, base, target);
    GroupJob.Tally t = (GroupJob.Tally) over[0];
    assertThat(t.patchesSkipped).isEqualTo(1);
    assertThat(t.diffNanos).isZero();
  }
}
