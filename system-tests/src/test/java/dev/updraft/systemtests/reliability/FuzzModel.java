package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.reliability.FuzzInputs.Device;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each device of the fuzz should be served, computed from what the test published (the publish and
 * roll back answers) by the rules the documentation states, not by the edge's code: channel → branch of
 * the same name (the fuzz maps no channel) → the newest entry on that branch for the platform and runtime
 * version → under a per-update rollout, the rolled-out group for devices whose bucket is inside it, the
 * control group and the entries before it otherwise → past the entries the device reported failed (the
 * failed-update fallback) → compared with what the device runs and has embedded (docs/concepts.md "How
 * a device gets its answer", edge-node/README.md "Resolution"; bucketing as {@code sha256-v1}: the first
 * 8 bytes of SHA-256 of the lower-cased client id, {@code :} and the rollout id, unsigned, modulo 10,000,
 * inside below percentage × 100). Protocol 0 gets no directive: the latest again where v1 would get
 * "no update" because it runs the latest; nothing (an error) where v1 would get another directive.
 *
 * <p>Immutable and thread-safe.
 */
final class FuzzModel {
  /** What a device must get: an update (its manifest id), "no update", or a roll back to embedded. */
  record Answer(String kind, String updateId) {
    static final String UPDATE = "update";
    static final String NO_UPDATE = "noUpdateAvailable";
    static final String ROLLBACK = "rollBackToEmbedded";
    /** Protocol 0 where v1 would get a directive other than "no update, you run the latest": an error, never a 200. */
    static final String NONE = "no 200";

    static Answer update(String id) {
      return new Answer(UPDATE, id);
    }

    static Answer of(String kind) {
      return new Answer(kind, null);
    }

    @Override
    public String toString() {
      return updateId == null ? kind : kind + " " + updateId;
    }
  }

  /** One published entry of a branch for runtime 1.0.0: an update group (possibly rolling out) or a roll back. */
  private record Entry(Map<String, String> ids, boolean rollBack, String rolloutId, int percentage) {}

  private static final String RUNTIME = "1.0.0";
  /** Clients list at most 5 failed updates; the edge walks this many entries of a line (docs: "failed updates"). */
  private static final int WALK = 6;
  /** Per {@code app/branch}, newest first. */
  private final Map<String, List<Entry>> lines = new HashMap<>();

  /**
   * @param published the fuzz's publish and roll back answers, in the order made, keyed by
   *     {@code app/branch} (later ones on a branch are newer)
   */
  FuzzModel(List<Map.Entry<String, JsonNode>> published) {
    for (Map.Entry<String, JsonNode> e : published) {
      JsonNode g = e.getValue();
      Map<String, String> ids = new HashMap<>();
      for (JsonNode p : g.path("platforms")) {
        ids.put(p.path("platform").asText(), p.path("updateId").asText());
      }
      if (!RUNTIME.equals(g.path("runtimeVersion").asText()) || ids.isEmpty()) {
        throw new IllegalArgumentException("not a runtime " + RUNTIME + " group: " + g);
      }
      boolean rollBack = "rollBackToEmbedded".equals(g.path("kind").asText());
      JsonNode rollout = g.path("rollout");
      List<Entry> line = lines.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
      Entry entry = rollout.isObject()
          ? new Entry(ids, rollBack, rollout.path("rolloutId").asText(), rollout.path("percentage").asInt())
          : new Entry(ids, rollBack, null, 100);
      if (entry.rolloutId() != null && (entry.rolloutId().isEmpty() || line.isEmpty())) {
        throw new IllegalArgumentException("a rollout without its id or control group: " + g);
      }
      line.add(0, entry);
    }
  }

  /**
   * What {@code d} must be served; null where the documentation leaves it open. The rules: the newest
   * entry of the line (under a rollout, the line from the control group for devices outside it), passing
   * over the entries the device reported failed (at most {@link #WALK} looked at); that entry compared with
   * what the device runs and has embedded.
   */
  Answer expect(Device d) {
    List<Entry> all = RUNTIME.equals(d.runtimeVersion()) ? lines.get(d.app() + "/" + d.channel()) : null;
    boolean v0 = "0".equals(d.protocol());
    List<Entry> line = new ArrayList<>();
    if (all != null) {
      for (Entry e : all) {
        if (e.ids().containsKey(d.platform())) {
          line.add(e);
        }
      }
    }
    if (line.isEmpty()) {
      return v0 ? Answer.of(Answer.NONE) : Answer.of(Answer.NO_UPDATE); // nothing for this channel and runtime
    }
    Entry head = line.get(0);
    int from = head.rolloutId() != null && !inside(d.clientId(), head.rolloutId(), head.percentage()) ? 1 : 0;
    int i = from;
    int end = Math.min(line.size(), from + WALK);
    while (i < end && d.failed().contains(line.get(i).ids().get(d.platform()))) {
      i++;
    }
    boolean skipped = i > from;
    if (i == end) {
      // every entry looked at was reported failed: "no update" (v0 cannot say it)
      return v0 ? Answer.of(Answer.NONE) : Answer.of(Answer.NO_UPDATE);
    }
    Entry chosen = line.get(i);
    String id = chosen.ids().get(d.platform());
    if (chosen.rollBack()) {
      if (v0) {
        return Answer.of(Answer.NONE);
      }
      return d.embedded() != null && d.embedded().equalsIgnoreCase(d.current()) ? Answer.of(Answer.NO_UPDATE) : Answer.of(Answer.ROLLBACK);
    }
    if (id.equalsIgnoreCase(d.current())) {
      if (skipped) {
        return v0 ? Answer.of(Answer.NONE) : Answer.of(Answer.NO_UPDATE);
      }
      // protocol 0 has no "no update": the latest again
      return v0 ? Answer.update(id) : Answer.of(Answer.NO_UPDATE);
    }
    return Answer.update(id);
  }

  /** Whether a device is inside a per-update rollout at {@code percentage} (sha256-v1 bucketing). */
  static boolean inside(String clientId, String rolloutId, int percentage) {
    if (percentage >= 100) {
      return true;
    }
    if (clientId == null) {
      return false;
    }
    return bucket(clientId, rolloutId) < percentage * 100;
  }

  static int bucket(String clientId, String rolloutId) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(clientId.toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8));
      sha.update((byte) ':');
      sha.update(rolloutId.getBytes(StandardCharsets.UTF_8));
      byte[] d = sha.digest();
      long n = 0;
      for (int i = 0; i < 8; i++) {
        n = (n << 8) | (d[i] & 0xff);
      }
      return (int) Long.remainderUnsigned(n, 10_000);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
