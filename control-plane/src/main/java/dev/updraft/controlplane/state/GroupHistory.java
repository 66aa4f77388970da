package dev.updraft.controlplane.state;

import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.Retention;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * An app's update groups in log order, with the indexes the queries need: each group's position by id,
 * the positions holding each update id, and per line (branch and runtime version) its groups, its groups
 * per platform and its active rollouts.
 *
 * <p>Immutable and persistent: {@link #plus} and {@link #replace} return a new history that shares all
 * but O(log n) nodes with this one (pcollections' trees), so folding one event costs what it touches and
 * never copies the app's history; readers keep the old one unchanged. The value is {@link #inLogOrder()}:
 * equal lists make equal histories (the indexes follow from it), and {@link #of} rebuilds one from a list.
 */
public final class GroupHistory {
  static final GroupHistory EMPTY =
      new GroupHistory(0, TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty());

  /** The position the next group gets: positions only grow, so their order is log order. */
  private final long next;
  /** By position (internal: equal histories may number their groups differently). */
  private final PSortedMap<Long, GroupState> groups;
  private final PSortedMap<String, Long> byId;
  private final PSortedMap<String, PSortedSet<Long>> byUpdateId;
  private final PSortedMap<LineKey, Line> lines;
  /** Group id → how many held groups republish it. */
  private final PSortedMap<String, Integer> republished;

  private GroupHistory(
      long next, PSortedMap<Long, GroupState> groups, PSortedMap<String, Long> byId, PSortedMap<String, PSortedSet<Long>> byUpdateId,
      PSortedMap<LineKey, Line> lines, PSortedMap<String, Integer> republished) {
    this.next = next;
    this.groups = groups;
    this.byId = byId;
    this.byUpdateId = byUpdateId;
    this.lines = lines;
    this.republished = republished;
  }

  /** Whether a held group republishes {@code groupId} (the control plane then holds it: it can be republished again). */
  boolean republishedByAHeldGroup(String groupId) {
    return republished.containsKey(groupId);
  }

  private PSortedMap<String, Integer> countRepublish(GroupState g, int delta) {
    String from = g.group().republishedFrom();
    if (from == null) {
      return republished;
    }
    int n = republished.getOrDefault(from, 0) + delta;
    return n <= 0 ? republished.minus(from) : republished.plus(from, n);
  }

  /** A history of {@code groups} in log order (a snapshot, a test). */
  public static GroupHistory of(List<GroupState> groups) {
    GroupHistory h = EMPTY;
    for (GroupState g : groups) {
      h = h.plus(g);
    }
    return h;
  }

  /** Every group held, in log order (which is {@code createdAt} order per line); unmodifiable. */
  public List<GroupState> inLogOrder() {
    return List.copyOf(groups.values());
  }

  /** Number of groups held. */
  public int size() {
    return groups.size();
  }

  /** A branch and runtime version. */
  record LineKey(String branch, String runtimeVersion) implements Comparable<LineKey> {
    static LineKey of(GroupState g) {
      return new LineKey(g.group().branch(), g.group().runtimeVersion());
    }

    @Override
    public int compareTo(LineKey o) {
      int c = branch.compareTo(o.branch);
      return c != 0 ? c : runtimeVersion.compareTo(o.runtimeVersion);
    }
  }

  /**
   * The groups of one line, as positions in the history.
   *
   * @param groups in log order
   * @param byPlatform per platform, the groups with an entry for it in log order
   * @param activeRollouts groups under an active per-update rollout
   */
  record Line(PSortedSet<Long> groups, PSortedMap<String, PSortedSet<Long>> byPlatform, PSortedSet<Long> activeRollouts) {
    static final Line EMPTY = new Line(TreePSet.empty(), TreePMap.empty(), TreePSet.empty());

    Line withActive(long position, GroupState g) {
      boolean active = g.rollout() != null && g.rollout().active();
      return new Line(groups, byPlatform, active ? activeRollouts.plus(position) : activeRollouts.minus(position));
    }
  }

  /** This history with {@code g} appended; a group id already used now names {@code g}. */
  GroupHistory plus(GroupState g) {
    long pos = next;
    PSortedMap<String, PSortedSet<Long>> updates = byUpdateId;
    LineKey key = LineKey.of(g);
    Line line = lines.getOrDefault(key, Line.EMPTY);
    PSortedMap<String, PSortedSet<Long>> platforms = line.byPlatform();
    for (PlatformUpdate p : g.group().platforms()) {
      updates = updates.plus(p.updateId(), updates.getOrDefault(p.updateId(), TreePSet.empty()).plus(pos));
      platforms = platforms.plus(p.platform(), platforms.getOrDefault(p.platform(), TreePSet.empty()).plus(pos));
    }
    line = new Line(line.groups().plus(pos), platforms, line.activeRollouts()).withActive(pos, g);
    return new GroupHistory(next + 1, groups.plus(pos, g), byId.plus(g.groupId(), pos), updates, lines.plus(key, line), countRepublish(g, 1));
  }

  /** This history without the group at {@code position} (dropped by the retention rule). */
  GroupHistory minus(long position) {
    GroupState g = groups.get(position);
    if (g == null) {
      return this;
    }
    PSortedMap<String, PSortedSet<Long>> updates = byUpdateId;
    LineKey key = LineKey.of(g);
    Line line = lines.get(key);
    PSortedMap<String, PSortedSet<Long>> platforms = line.byPlatform();
    for (PlatformUpdate p : g.group().platforms()) {
      updates = without(updates, p.updateId(), position);
      platforms = without(platforms, p.platform(), position);
    }
    PSortedSet<Long> lineGroups = line.groups().minus(position);
    PSortedMap<LineKey, Line> nextLines =
        lineGroups.isEmpty() ? lines.minus(key) : lines.plus(key, new Line(lineGroups, platforms, line.activeRollouts().minus(position)));
    Long named = byId.get(g.groupId());
    PSortedMap<String, Long> ids = named != null && named == position ? byId.minus(g.groupId()) : byId;
    return new GroupHistory(next, groups.minus(position), ids, updates, nextLines, countRepublish(g, -1));
  }

  private static PSortedMap<String, PSortedSet<Long>> without(PSortedMap<String, PSortedSet<Long>> m, String key, long position) {
    PSortedSet<Long> s = m.get(key);
    if (s == null) {
      return m;
    }
    PSortedSet<Long> rest = s.minus(position);
    return rest.isEmpty() ? m.minus(key) : m.plus(key, rest);
  }

  /** The positions of the groups on {@code branch} (every runtime version), ascending. */
  List<Long> positionsOnBranch(String branch) {
    List<Long> out = new ArrayList<>();
    for (Map.Entry<LineKey, Line> e : lines.entrySet()) {
      if (e.getKey().branch().equals(branch)) {
        out.addAll(e.getValue().groups());
      }
    }
    Collections.sort(out);
    return out;
  }

  /**
   * This history with the group at {@code position} replaced by {@code g}, the same group in a new state
   * (its id, line and entries' update ids unchanged).
   */
  GroupHistory replace(long position, GroupState g) {
    LineKey key = LineKey.of(g);
    return new GroupHistory(
        next, groups.plus(position, g), byId, byUpdateId, lines.plus(key, lines.get(key).withActive(position, g)), republished);
  }

  /** The position of the newest group with {@code groupId}, or -1. */
  long position(String groupId) {
    Long pos = byId.get(groupId);
    return pos == null ? -1 : pos;
  }

  /** The positions of the groups with an entry of {@code updateId}, in log order (usually one). */
  Collection<Long> positionsOf(String updateId) {
    return byUpdateId.getOrDefault(updateId, TreePSet.empty());
  }

  GroupState at(long position) {
    return groups.get(position);
  }

  /** The group with {@code groupId}, or null. */
  GroupState group(String groupId) {
    long pos = position(groupId);
    return pos < 0 ? null : groups.get(pos);
  }

  /**
   * This history with only the groups of one line that the retention rule holds ({@link Retention#held}):
   * called after every event that adds a group to the line or changes a rollout on it.
   */
  GroupHistory retain(String branch, String runtimeVersion, int window, Predicate<String> pinned) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    if (line == null || line.groups().size() <= window) {
      return this;
    }
    List<Retention.Entry> entries = new ArrayList<>(line.groups().size());
    for (Iterator<Long> it = line.groups().descendingIterator(); it.hasNext(); ) {
      GroupState g = groups.get(it.next());
      RolloutState r = g.rollout();
      entries.add(new Retention.Entry(g.groupId(), r != null && r.active(), r == null ? null : r.controlGroupId()));
    }
    Set<String> held = Retention.held(entries, window, pinned);
    GroupHistory out = this;
    for (long pos : line.groups()) {
      if (!held.contains(groups.get(pos).groupId())) {
        out = out.minus(pos);
      }
    }
    return out;
  }

  /** The groups of one line, newest first. */
  List<GroupState> lineOf(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    if (line == null) {
      return List.of();
    }
    List<GroupState> out = new ArrayList<>(line.groups().size());
    for (Iterator<Long> it = line.groups().descendingIterator(); it.hasNext(); ) {
      out.add(groups.get(it.next()));
    }
    return out;
  }

  /** The newest group that is not reverted among {@code positions}, or null. */
  private GroupState newestNotReverted(PSortedSet<Long> positions) {
    for (Iterator<Long> it = positions.descendingIterator(); it.hasNext(); ) {
      GroupState g = groups.get(it.next());
      if (!g.reverted()) {
        return g;
      }
    }
    return null;
  }

  GroupState latestWith(String branch, String runtimeVersion, String platform) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    return line == null ? null : newestNotReverted(line.byPlatform().getOrDefault(platform, TreePSet.empty()));
  }

  String latestCreatedAt(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    if (line == null) {
      return null;
    }
    for (Iterator<Long> it = line.groups().descendingIterator(); it.hasNext(); ) {
      String created = groups.get(it.next()).createdAt();
      if (created != null) {
        return created;
      }
    }
    return null;
  }

  GroupState activeRollout(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    return line == null || line.activeRollouts().isEmpty() ? null : groups.get(line.activeRollouts().last());
  }

  /** Every group under an active per-update rollout, in log order. */
  List<GroupState> activeRollouts() {
    PSortedSet<Long> all = TreePSet.empty();
    for (Line line : lines.values()) {
      all = all.plusAll(line.activeRollouts());
    }
    List<GroupState> out = new ArrayList<>(all.size());
    for (long pos : all) {
      out.add(groups.get(pos));
    }
    return List.copyOf(out);
  }

  List<String> platformsOn(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    return line == null ? List.of() : List.copyOf(line.byPlatform().keySet());
  }

  /** The lines that have groups, sorted by branch, then runtime version. */
  Iterable<LineKey> lineKeys() {
    return lines.keySet();
  }

  /** Per line and platform, the newest group that is not reverted, in the log order of their first such group. */
  List<PlatformHead> heads() {
    List<PlatformHead> out = new ArrayList<>();
    for (Line line : lines.values()) {
      for (Map.Entry<String, PSortedSet<Long>> e : line.byPlatform().entrySet()) {
        PSortedSet<Long> positions = e.getValue();
        long first = -1;
        for (long pos : positions) {
          if (!groups.get(pos).reverted()) {
            first = pos;
            break;
          }
        }
        if (first >= 0) {
          out.add(new PlatformHead(first, platformIndex(groups.get(first), e.getKey()), e.getKey(), newestNotReverted(positions)));
        }
      }
    }
    out.sort(null);
    return out;
  }

  /**
   * The newest group not reverted of one line and platform, and where that line and platform started (a
   * position in the history, then the platform's place in that group's entries).
   */
  record PlatformHead(long firstPosition, int platformIndex, String platform, GroupState newest) implements Comparable<PlatformHead> {
    @Override
    public int compareTo(PlatformHead o) {
      int c = Long.compare(firstPosition, o.firstPosition);
      return c != 0 ? c : Integer.compare(platformIndex, o.platformIndex);
    }
  }

  private static int platformIndex(GroupState g, String platform) {
    List<PlatformUpdate> ps = g.group().platforms();
    for (int i = 0; i < ps.size(); i++) {
      if (ps.get(i).platform().equals(platform)) {
        return i;
      }
    }
    return ps.size();
  }

  /**
   * The groups with an entry for {@code platform} on one line that are not reverted, newest first, from the
   * group {@code fromGroupId} (null: the newest; not on the line: none) down, at most {@code n}.
   */
  List<GroupState> newestWith(String branch, String runtimeVersion, String platform, String fromGroupId, int n) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    if (line == null) {
      return List.of();
    }
    PSortedSet<Long> positions = line.byPlatform().getOrDefault(platform, TreePSet.empty());
    List<GroupState> out = new ArrayList<>(n);
    boolean started = fromGroupId == null;
    for (Iterator<Long> it = positions.descendingIterator(); it.hasNext() && out.size() < n; ) {
      GroupState g = groups.get(it.next());
      started = started || g.groupId().equals(fromGroupId);
      if (started && !g.reverted()) {
        out.add(g);
      }
    }
    return out;
  }

  /** Groups of one line, newest first (a copy: a line holds a bounded number of groups). */
  List<GroupState> newestFirst(String branch, String runtimeVersion) {
    return Collections.unmodifiableList(lineOf(branch, runtimeVersion));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GroupHistory && ((GroupHistory) o).inLogOrder().equals(inLogOrder());
  }

  @Override
  public int hashCode() {
    return inLogOrder().hashCode();
  }

  @Override
  public String toString() {
    return "GroupHistory" + groups.values();
  }
}
