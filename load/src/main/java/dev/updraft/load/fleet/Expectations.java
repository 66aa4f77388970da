package dev.updraft.load.fleet;

import dev.updraft.load.check.ErrorKind;
import dev.updraft.load.check.ResponseCheck;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What each (platform, runtime version, channel) should be served, learned from the server, and the
 * judgement of each answer against the device that asked. Thread-safe: a key's state changes under its
 * lock; reads are volatile.
 *
 * <p>The rule (documented in {@code load/README.md}, "Expected update"):
 * <ol>
 *   <li>Before the run, discovery asks once per key as a device running its embedded bundle: the
 *       manifest it gets is the expected update (a "no update" answer means nothing is published: the
 *       embedded bundle is expected).
 *   <li>A manifest equal to the expected update is right. A manifest whose {@code createdAt} is later
 *       than the expected one's (a publish happened) becomes the expected update: the old one stays
 *       acceptable for {@code grace} after the switch (edges catch up at different moments). A manifest
 *       of the previous update within the grace is counted as stale, not as an error; anything else is
 *       {@link ErrorKind#WRONG_UPDATE}. A manifest of the very update the device runs is
 *       {@link ErrorKind#REDUNDANT_MANIFEST}.
 *   <li>"No update" (directive, 204 or an empty multipart) is right when the device runs the expected
 *       update (or the previous one within the grace); otherwise {@link ErrorKind#MISSED_UPDATE}.
 *   <li>{@code rollBackToEmbedded} is right when the expected state is a rollback; one whose
 *       {@code commitTime} is later than the expected update's {@code createdAt} is learned as one.
 *   <li>After a push trigger, the generator polls each key as an embedded device until the new update
 *       shows (the time is reported as publish-to-visible).
 * </ol>
 * A device that is served an update (or a rollback) runs it from then on.
 */
public final class Expectations {
  /** The expected state of one key. */
  static final class KeyState {
    volatile int expected = -1;
    volatile String createdAt = "";
    volatile boolean rollback;
    volatile int previous = -1;
    volatile long switchedAtNanos;
  }

  /** The judgement of one answer: an error or null, and whether it was stale within the grace. */
  public record Verdict(ErrorKind error, String detail, boolean stale, boolean learned) {
    static final Verdict OK = new Verdict(null, null, false, false);
    static final Verdict STALE = new Verdict(null, null, true, false);
    static final Verdict LEARNED = new Verdict(null, null, false, true);
  }

  private final Fleet fleet;
  private final Fleet.Catalog catalog;
  private final KeyState[] states;
  private final long graceNanos;
  final AtomicLong staleWithinGrace = new AtomicLong();
  final AtomicLong learnedSwitches = new AtomicLong();

  /** How often a newer expected update was learned from an answer. */
  public long learnedSwitches() {
    return learnedSwitches.get();
  }

  public Expectations(Fleet fleet, Fleet.Catalog catalog, long graceNanos) {
    this.fleet = fleet;
    this.catalog = catalog;
    this.graceNanos = graceNanos;
    this.states = new KeyState[fleet.keys.size()];
    for (int i = 0; i < states.length; i++) {
      states[i] = new KeyState();
    }
  }

  public KeyState state(int key) {
    return states[key];
  }

  public int expectedIdx(int key) {
    return states[key].expected;
  }

  /** The expected update id per key, -1 for unknown (for {@link Fleet#initialise}). */
  public int[] expectedByKey() {
    int[] r = new int[states.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = states[i].expected;
    }
    return r;
  }

  /** Whether the device does not run what its key should run now. Unknown expectations: never outdated. */
  public boolean outdated(int device) {
    Fleet.Key k = fleet.key(device);
    int e = states[k.index()].expected;
    return e >= 0 && fleet.currentIdx(device) != e;
  }

  /** Sets the expected state from a discovery answer (before the run, or after a trigger). */
  public void learn(Fleet.Key key, ResponseCheck.Answer a, long nowNanos) {
    KeyState s = states[key.index()];
    synchronized (s) {
      int idx;
      String created;
      boolean rb;
      switch (a.kind()) {
        case MANIFEST:
          idx = catalog.internFast(a.updateId());
          created = a.createdAt();
          rb = false;
          break;
        case ROLLBACK:
          idx = key.embeddedIdx();
          created = a.createdAt();
          rb = true;
          break;
        default:
          if (s.expected >= 0) {
            return;
          }
          idx = key.embeddedIdx();
          created = "";
          rb = false;
      }
      if (s.expected != idx || s.rollback != rb) {
        if (s.expected >= 0) {
          s.previous = s.expected;
          s.switchedAtNanos = nowNanos;
          learnedSwitches.incrementAndGet();
        }
        s.expected = idx;
        s.createdAt = created;
        s.rollback = rb;
      }
    }
  }

  /** Judges an answer given to {@code device} and moves the device to the update it was served. */
  public Verdict judge(int device, ResponseCheck.Answer a, long nowNanos) {
    return judge(device, fleet.currentIdx(device), a, nowNanos);
  }

  /**
   * Judges an answer to a request that {@code device} sent while running {@code sentIdx} (the simulated
   * fleet may have two requests of one device in flight; each is judged by what it said).
   */
  public Verdict judge(int device, int sentIdx, ResponseCheck.Answer a, long nowNanos) {
    Fleet.Key key = fleet.key(device);
    KeyState s = states[key.index()];
    int cur = sentIdx;
    switch (a.kind()) {
      case NO_UPDATE: {
        int e = s.expected;
        if (e < 0) {
          synchronized (s) {
            if (s.expected < 0) {
              s.expected = cur;
            }
          }
          return Verdict.OK;
        }
        if (cur == e) {
          return Verdict.OK;
        }
        if (cur == s.previous && nowNanos - s.switchedAtNanos <= graceNanos) {
          staleWithinGrace.incrementAndGet();
          return Verdict.STALE;
        }
        return new Verdict(ErrorKind.MISSED_UPDATE, null, false, false);
      }
      case MANIFEST: {
        int m = catalog.internFast(a.updateId());
        if (m == cur) {
          return new Verdict(ErrorKind.REDUNDANT_MANIFEST, "update=" + a.updateId(), false, false);
        }
        if (m == s.expected && !s.rollback) {
          fleet.run(device, m);
          return Verdict.OK;
        }
        boolean learned = false;
        synchronized (s) {
          if (m == s.expected && !s.rollback) {
            learned = false;
          } else if (s.expected < 0 || a.createdAt().compareTo(s.createdAt) > 0) {
            if (s.expected >= 0) {
              s.previous = s.expected;
              s.switchedAtNanos = nowNanos;
              learnedSwitches.incrementAndGet();
            }
            s.expected = m;
            s.createdAt = a.createdAt();
            s.rollback = false;
            learned = true;
          } else if (m == s.previous && nowNanos - s.switchedAtNanos <= graceNanos) {
            staleWithinGrace.incrementAndGet();
            fleet.run(device, m);
            return Verdict.STALE;
          } else {
            return new Verdict(ErrorKind.WRONG_UPDATE,
                "served=" + a.updateId() + " expected=" + catalog.id(s.expected) + " key=" + key.label(), false, false);
          }
        }
        fleet.run(device, m);
        return learned ? Verdict.LEARNED : Verdict.OK;
      }
      case ROLLBACK: {
        synchronized (s) {
          if (!s.rollback) {
            if (s.expected >= 0 && a.createdAt().compareTo(s.createdAt) <= 0) {
              return new Verdict(ErrorKind.WRONG_UPDATE,
                  "rollBackToEmbedded commitTime=" + a.createdAt() + " not after expected createdAt=" + s.createdAt, false, false);
            }
            if (s.expected >= 0) {
              s.previous = s.expected;
              s.switchedAtNanos = nowNanos;
              learnedSwitches.incrementAndGet();
            }
            s.expected = key.embeddedIdx();
            s.createdAt = a.createdAt();
            s.rollback = true;
          }
        }
        fleet.run(device, key.embeddedIdx());
        return Verdict.OK;
      }
      default:
        throw new IllegalStateException("unjudgeable answer kind=" + a.kind());
    }
  }
}
