package dev.updraft.systemtests.reliability;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.systemtests.reliability.FuzzInputs.Device;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What each device of the fuzz should be served, computed from what the test published (the publish and
 * roll back answers) by the rules the documentation states, not by the edge's code: channel → branch of
 * the same name (the fuzz maps no channel) → the newest entry on that branch for the platform and runtime
 * version → under a per-update rollout, the rolled-out group for devices whose bucket is inside it, the
 * control group otherwise → compared with what the device runs and reported failed (docs/concepts.md "How
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

  /** The newest entry of a branch for runtime 1.0.0: an update group, possibly rolling out over a control group. */
  private record Head(Map<String, String> ids, boolean rollBack, String rolloutId, int percentage, Map<String, String> control) {}

  private static final String RUNTIME = "1.0.0";
  private final Map<String, Head> heads = new HashMap<>();

  /**
   * @param published the fuzz's publish and roll back answers, in the order made, keyed by
   *     {@code app/branch} (later ones on a branch replace earlier ones as its newest)
   */
  FuzzModel(List<Map.Entry<String, JsonNode>> published) {
    Map<String, Map<String, String>> previous = new HashMap<>();
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
      Head h = rollout.isObject()
          ? new Head(ids, rollBack, rollout.path("rolloutId").asText(), rollout.path("percentage").asInt(), previous.get(e.getKey()))
          : new Head(ids, rollBack, null, 100, null);
      if (h.rolloutId() != null && (h.rolloutId().isEmpty() || h.control() == null)) {
        throw new IllegalArgumentException("a rollout without its id or control group: " + g);
      }
      heads.put(e.getKey(), h);
      previous.put(e.getKey(), ids);
    }
  }

  /**
   * What {@code d} must be served; null where the documentation leaves it open (protocol 0, running the
   * latest and having reported it failed: a re-send or an error).
   */
  Answer expect(Device d) {
    Head h = RUNTIME.equals(d.runtimeVersion()) ? heads.get(d.app() + "/" + d.channel()) : null;
    Answer v1;
    String latest = null;
    if (h == null || !h.ids().containsKey(d.platform())) {
      v1 = Answer.of(Answer.NO_UPDATE); // nothing for this channel and runtime
    } else if (h.rollBack()) {
      v1 = d.embedded() != null && d.embedded().equals(d.current()) ? Answer.of(Answer.NO_UPDATE) : Answer.of(Answer.ROLLBACK);
    } else {
      Map<String, String> served = h.rolloutId() == null || inside(d.clientId(), h.rolloutId(), h.percentage()) ? h.ids() : h.control();
      latest = served.get(d.platform());
      v1 = latest.equals(d.current()) || d.failed().contains(latest) ? Answer.of(Answer.NO_UPDATE) : Answer.update(latest);
    }
    if (!"0".equals(d.protocol())) {
      return v1;
    }
    if (v1.kind().equals(Answer.UPDATE)) {
      return v1;
    }
    // protocol 0: the latest again when it is what the device runs; otherwise no answer a v0 client can take
    if (latest != null && latest.equals(d.current())) {
      return d.failed().contains(latest) ? null : Answer.update(latest);
    }
    return Answer.of(Answer.NONE);
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
