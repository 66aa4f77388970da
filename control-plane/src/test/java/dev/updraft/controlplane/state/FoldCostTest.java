package dev.updraft.controlplane.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventEnvelope;
import dev.updraft.events.AppEvents.AppCreated;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.RolloutEvents.Rollout;
import dev.updraft.events.RolloutEvents.RolloutChanged;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.events.EventPayload;
import dev.updraft.events.EventType;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Folding one event costs what it touches, not the app's history: after 20,000 publishes on one branch,
 * the state after one more event shares everything with the state before but a bounded number of new
 * objects and slots. (Copying the audit list alone would add 20,000 slots.) The count is structural, not
 * timed: every object and array slot reachable from the new state that is not reachable from the old
 * one. And the groups held are the retention rule's window, not the 20,000 published.
 */
class FoldCostTest {
  static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  static final int PUBLISHES = 20_000;
  /** Generous: a path through each persistent tree the event touches is a few hundred objects. */
  static final long MAX_NEW_PER_EVENT = 1_000;

  static ControlState state;

  static EventEnvelope e(long seq, EventPayload p) {
    return new EventEnvelope(new UUID(2, seq), p.type(), EventType.CURRENT_SCHEMA_VERSION, "demo", seq, T0.plusMillis(seq), "admin", p);
  }

  static UpdateGroup group(long n, Rollout rollout) {
    String id = "g" + n;
    PlatformUpdate ios = new PlatformUpdate("ios", id + "-ios", "2026-11-30T10:00:00.000Z", "{\"id\":\"" + id + "\"}", null, "k", List.of("k"));
    return new UpdateGroup(id, UpdateGroup.KIND_UPDATE, "main", "1", null, null, "idem-" + id, null, rollout, List.of(ios));
  }

  @BeforeAll
  static void foldManyPublishes() {
    ControlState s = StateFold.apply(ControlState.EMPTY, e(1, new AppCreated("Demo")));
    for (long n = 2; n <= PUBLISHES + 1; n++) {
      s = StateFold.apply(s, e(n, new UpdatePublished(group(n, null))));
    }
    state = s;
    assertThat(state.app("demo").groups()).hasSize(StateFold.WINDOW);
    assertThat(state.app("demo").lastSequence()).isEqualTo(PUBLISHES + 1);
  }

  @Test
  void aPublishAfterTwentyThousandAddsABoundedNumberOfObjects() {
    AppState before = state.app("demo");
    long seq = before.lastSequence() + 1;
    ControlState after = StateFold.apply(state, e(seq, new UpdatePublished(group(seq, null))));
    long added = newObjects(state, after);
    System.out.println("fold cost: publish number " + (PUBLISHES + 1) + " on one branch added " + added + " objects and slots");
    assertThat(added).isLessThan(MAX_NEW_PER_EVENT);
    assertThat(after.app("demo").groups().get(0)).as("the oldest held group left the window").isSameAs(before.groups().get(1));
    assertThat(after.app("demo").groups()).hasSize(StateFold.WINDOW);
    assertThat(after.app("demo").groups().get(StateFold.WINDOW - 1).groupId()).isEqualTo("g" + seq);
    assertThat(state.app("demo").groups()).as("the state before is unchanged").hasSize(StateFold.WINDOW);
    assertThat(state.app("demo").groups().get(0).groupId()).isEqualTo("g" + (PUBLISHES + 2 - StateFold.WINDOW));
  }

  @Test
  void aRenewalOfTheOldestGroupAndARolloutChangeAddABoundedNumberOfObjects() {
    long seq = state.app("demo").lastSequence() + 1;
    String oldest = state.app("demo").groups().get(0).groupId();
    ControlState renewed = StateFold.apply(state, e(seq, new ManifestsRenewed("renew", List.of(new Renewal(oldest + "-ios", "{\"renewed\":1}", null)))));
    assertThat(renewed.app("demo").group(oldest).platform("ios").body()).isEqualTo("{\"renewed\":1}");
    long added = newObjects(state, renewed);
    System.out.println("fold cost: renewing the oldest held group after " + PUBLISHES + " publishes added " + added + " objects and slots");
    assertThat(added).isLessThan(MAX_NEW_PER_EVENT);

    ControlState rolling = StateFold.apply(renewed, e(seq + 1, new UpdatePublished(group(seq + 1, new Rollout("r", 10, "g" + seq, null)))));
    ControlState changed = StateFold.apply(rolling, e(seq + 2, new RolloutChanged("g" + (seq + 1), "r", 50, null)));
    assertThat(changed.app("demo").activeRollout("main", "1").rollout().percentage()).isEqualTo(50);
    assertThat(newObjects(rolling, changed)).isLessThan(MAX_NEW_PER_EVENT);
  }

  @Test
  void theCountSeesACopyOfTheHistory() {
    java.util.List<String> copy = new java.util.ArrayList<>();
    for (int i = 0; i < PUBLISHES; i++) {
      copy.add(Integer.toString(i));
    }
    assertThat(newObjects(state, copy)).isGreaterThanOrEqualTo(PUBLISHES);
  }

  @Test
  void theLineIndexAnswersWithoutScanningAndAgreesWithTheLog() {
    AppState app = state.app("demo");
    assertThat(app.latestWith("main", "1", "ios").groupId()).isEqualTo("g" + (PUBLISHES + 1));
    assertThat(app.groupsNewestFirst("main", "1")).hasSize(StateFold.WINDOW);
    assertThat(app.groupsNewestFirst("main", "1").get(StateFold.WINDOW - 1).groupId()).isEqualTo("g" + (PUBLISHES + 2 - StateFold.WINDOW));
    assertThat(app.groupsNewestFirst("main", null)).isEqualTo(app.groupsNewestFirst("main", "1"));
    assertThat(app.servable()).containsExactly(new AppState.Servable("g" + (PUBLISHES + 1), "ios"));
    // T0 + one millisecond per event: every key is within 24 h, so the window holds the newest 1,000
    assertThat(app.idempotencyKeys().size()).isEqualTo(IdempotencyWindow.MAX_KEYS);
    assertThat(app.idempotencyKeys().get("idem-g" + (PUBLISHES + 1))).isEqualTo("g" + (PUBLISHES + 1));
    assertThat(app.idempotencyKeys().get("idem-g2")).isNull();
  }

  /**
   * Objects and array or collection slots reachable from {@code after} but not from {@code before}. The
   * state holds no closures: a lambda reached from it fails the count.
   */
  static long newObjects(Object before, Object after) {
    Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    walk(before, seen);
    return walk(after, seen);
  }

  private static long walk(Object root, Set<Object> seen) {
    long count = 0;
    Deque<Object> todo = new ArrayDeque<>();
    todo.push(root);
    while (!todo.isEmpty()) {
      Object o = todo.pop();
      if (!seen.add(o)) {
        continue;
      }
      count++;
      Class<?> c = o.getClass();
      if (c.isSynthetic() || c.getName().contains("$$Lambda")) {
        throw new AssertionError("a closure in the state: " + c.getName());
      }
      if (c.isArray()) {
        int n = Array.getLength(o);
        count += n;
        if (!c.getComponentType().isPrimitive()) {
          for (int i = 0; i < n; i++) {
            push(todo, Array.get(o, i));
          }
        }
      } else if (jdk(c)) {
        // JDK types are not opened to reflection: walk collections through their API, take the rest as leaves
        if (o instanceof Map) {
          count += ((Map<?, ?>) o).size();
          for (Map.Entry<?, ?> en : ((Map<?, ?>) o).entrySet()) {
            push(todo, en.getKey());
            push(todo, en.getValue());
          }
        } else if (o instanceof Collection) {
          count += ((Collection<?>) o).size();
          for (Object x : (Collection<?>) o) {
            push(todo, x);
          }
        }
      } else {
        for (Class<?> k = c; k != null && !jdk(k); k = k.getSuperclass()) {
          for (Field f : k.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
              f.setAccessible(true);
              try {
                push(todo, f.get(o));
              } catch (IllegalAccessException ex) {
                throw new AssertionError(ex);
              }
            }
          }
        }
      }
    }
    return count;
  }

  private static void push(Deque<Object> todo, Object o) {
    if (o != null) {
      todo.push(o);
    }
  }

  private static boolean jdk(Class<?> c) {
    String n = c.getName();
    return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.");
  }
}
