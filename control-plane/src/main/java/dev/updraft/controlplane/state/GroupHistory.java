package dev.updraft.controlplane.state;

import dev.updraft.events.EventPayload.PlatformUpdate;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import org.pcollections.PSortedMap;
import org.pcollections.PSortedSet;
import org.pcollections.PVector;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;
import org.pcollections.TreePVector;

/**
 * An app's update groups in log order, with the indexes the queries need: each group's position by id,
 * the positions holding each update id, and per line (branch and runtime version) its groups, its groups
 * per platform and its active rollouts.
 *
 * <p>Immutable and persistent: {@link #plus} and {@link #replace} return a new history that shares all
 * but O(log n) nodes with this one (pcollections' trees), so folding one event costs what it touches and
 * never copies the app's history; readers keep the old one unchanged. The value is {@link #inLogOrder()}:
 * equal lists make equal histories (the indexes follow from it), and {@link #of} rebuilds one from a list.
 *
 * <p>A deleted group ({@link #minus}) leaves every index and {@link #inLogOrder()}: only a tombstone
 * without bodies keeps its place in the vector, so that the positions of the others stay.
 */
public final class GroupHistory {
  static final GroupHistory EMPTY =
      new GroupHistory(TreePVector.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePSet.empty());

  private final PVector<GroupState> groups;
  private final PSortedMap<String, Integer> byId;
  private final PSortedMap<String, PVector<Integer>> byUpdateId;
  private final PSortedMap<LineKey, Line> lines;
  /** Positions of deleted groups (tombstones in {@link #groups}). */
  private final PSortedSet<Integer> deleted;
  /** {@link #inLogOrder()} when some groups are deleted, computed once (a benign race). */
  private List<GroupState> live;

  private GroupHistory(
      PVector<GroupState> groups, PSortedMap<String, Integer> byId, PSortedMap<String, PVector<Integer>> byUpdateId,
      PSortedMap<LineKey, Line> lines, PSortedSet<Integer> deleted) {
    this.groups = groups;
    this.byId = byId;
    this.byUpdateId = byUpdateId;
    this.lines = lines;
    this.deleted = deleted;
  }

  /** A history of {@code groups} in log order (a snapshot, a test). */
  public static GroupHistory of(List<GroupState> groups) {
    GroupHistory h = EMPTY;
    for (GroupState g : groups) {
      h = h.plus(g);
    }
    return h;
  }

  /** Every group not deleted in log order (which is {@code createdAt} order per line); unmodifiable. */
  public List<GroupState> inLogOrder() {
    if (deleted.isEmpty()) {
      return groups;
    }
    List<GroupState> l = live;
    if (l == null) {
      List<GroupState> out = new ArrayList<>(groups.size() - deleted.size());
      for (int i = 0; i < groups.size(); i++) {
        if (!deleted.contains(i)) {
          out.add(groups.get(i));
        }
      }
      l = Collections.unmodifiableList(out);
      live = l;
    }
    return l;
  }

  /** How many groups were deleted from this history. */
  public int deletedCount() {
    return deleted.size();
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
  record Line(PVector<Integer> groups, PSortedMap<String, PVector<Integer>> byPlatform, PSortedSet<Integer> activeRollouts) {
    static final Line EMPTY = new Line(TreePVector.empty(), TreePMap.empty(), TreePSet.empty());

    Line withActive(int position, GroupState g) {
      boolean active = g.rollout() != null && g.rollout().active();
      return new Line(groups, byPlatform, active ? activeRollouts.plus(position) : activeRollouts.minus(position));
    }
  }

  /** This history with {@code g} appended; a group id already used now names {@code g}. */
  GroupHistory plus(GroupState g) {
    int pos = groups.size();
    PSortedMap<String, PVector<Integer>> updates = byUpdateId;
    LineKey key = LineKey.of(g);
    Line line = lines.getOrDefault(key, Line.EMPTY);
    PSortedMap<String, PVector<Integer>> platforms = line.byPlatform();
    for (PlatformUpdate p : g.group().platforms()) {
      updates = updates.plus(p.updateId(), updates.getOrDefault(p.updateId(), TreePVector.empty()).plus(pos));
      platforms = platforms.plus(p.platform(), platforms.getOrDefault(p.platform(), TreePVector.empty()).plus(pos));
    }
    line = new Line(line.groups().plus(pos), platforms, line.activeRollouts()).withActive(pos, g);
    return new GroupHistory(groups.plus(g), byId.plus(g.groupId(), pos), updates, lines.plus(key, line), deleted);
  }

  /**
   * This history without the group at {@code position}: it leaves every index (its line, its platforms,
   * its update ids, its id) and {@link #inLogOrder()}; a tombstone without bodies keeps its place. Costs
   * O(log² n) per index it was in.
   */
  GroupHistory minus(int position) {
    if (deleted.contains(position)) {
      return this;
    }
    GroupState g = groups.get(position);
    PSortedMap<String, Integer> ids = byId;
    if (Integer.valueOf(position).equals(ids.get(g.groupId()))) {
      ids = ids.minus(g.groupId());
    }
    PSortedMap<String, PVector<Integer>> updates = byUpdateId;
    LineKey key = LineKey.of(g);
    Line line = lines.get(key);
    PSortedMap<String, PVector<Integer>> platforms = line.byPlatform();
    for (PlatformUpdate p : g.group().platforms()) {
      updates = without(updates, p.updateId(), position);
      platforms = without(platforms, p.platform(), position);
    }
    PVector<Integer> lineGroups = without(line.groups(), position);
    PSortedMap<LineKey, Line> ls =
        lineGroups.isEmpty()
            ? lines.minus(key)
            : lines.plus(key, new Line(lineGroups, platforms, line.activeRollouts().minus(position)));
    GroupState tombstone =
        new GroupState(g.group().withPlatforms(List.of()), g.sequence(), g.publishedAt(), g.actor(), Map.of(), null, g.revertedBy());
    return new GroupHistory(groups.with(position, tombstone), ids, updates, ls, deleted.plus(position));
  }

  /** {@code positions} (ascending) without {@code position}. */
  private static PVector<Integer> without(PVector<Integer> positions, int position) {
    int at = Collections.binarySearch(positions, position);
    return at < 0 ? positions : positions.minus(at);
  }

  private static <K> PSortedMap<K, PVector<Integer>> without(PSortedMap<K, PVector<Integer>> index, K key, int position) {
    PVector<Integer> ps = index.get(key);
    if (ps == null) {
      return index;
    }
    PVector<Integer> rest = without(ps, position);
    return rest.isEmpty() ? index.minus(key) : index.plus(key, rest);
  }

  /** The positions of the groups on {@code branch} (every runtime version), ascending. */
  List<Integer> positionsOnBranch(String branch) {
    List<Integer> out = new ArrayList<>();
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
  GroupHistory replace(int position, GroupState g) {
    LineKey key = LineKey.of(g);
    return new GroupHistory(
        groups.with(position, g), byId, byUpdateId, lines.plus(key, lines.get(key).withActive(position, g)), deleted);
  }

  /** The position of the newest group with {@code groupId}, or -1. */
  int position(String groupId) {
    Integer pos = byId.get(groupId);
    return pos == null ? -1 : pos;
  }

  /** The positions of the groups with an entry of {@code updateId}, in log order (usually one). */
  List<Integer> positionsOf(String updateId) {
    return byUpdateId.getOrDefault(updateId, TreePVector.empty());
  }

  GroupState at(int position) {
    return groups.get(position);
  }

  /** The group with {@code groupId}, or null. */
  GroupState group(String groupId) {
    int pos = position(groupId);
    return pos < 0 ? null : groups.get(pos);
  }

  /** The newest group that is not reverted among {@code positions}, or null. */
  private GroupState newestNotReverted(List<Integer> positions) {
    for (int i = positions.size() - 1; i >= 0; i--) {
      GroupState g = groups.get(positions.get(i));
      if (!g.reverted()) {
        return g;
      }
    }
    return null;
  }

  GroupState latestWith(String branch, String runtimeVersion, String platform) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    return line == null ? null : newestNotReverted(line.byPlatform().getOrDefault(platform, TreePVector.empty()));
  }

  String latestCreatedAt(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    if (line == null) {
      return null;
    }
    for (int i = line.groups().size() - 1; i >= 0; i--) {
      String created = groups.get(line.groups().get(i)).createdAt();
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
    PSortedSet<Integer> all = TreePSet.empty();
    for (Line line : lines.values()) {
      all = all.plusAll(line.activeRollouts());
    }
    List<GroupState> out = new ArrayList<>(all.size());
    for (int pos : all) {
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
      for (Map.Entry<String, PVector<Integer>> e : line.byPlatform().entrySet()) {
        PVector<Integer> positions = e.getValue();
        int first = -1;
        for (int pos : positions) {
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
  record PlatformHead(int firstPosition, int platformIndex, String platform, GroupState newest) implements Comparable<PlatformHead> {
    @Override
    public int compareTo(PlatformHead o) {
      int c = Integer.compare(firstPosition, o.firstPosition);
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
    PVector<Integer> positions = line.byPlatform().getOrDefault(platform, TreePVector.empty());
    List<GroupState> out = new ArrayList<>(n);
    boolean started = fromGroupId == null;
    for (int i = positions.size() - 1; i >= 0 && out.size() < n; i--) {
      GroupState g = groups.get(positions.get(i));
      started = started || g.groupId().equals(fromGroupId);
      if (started && !g.reverted()) {
        out.add(g);
      }
    }
    return out;
  }

  /** Groups of one line, newest first: a view, no copy. */
  List<GroupState> newestFirst(String branch, String runtimeVersion) {
    Line line = lines.get(new LineKey(branch, runtimeVersion));
    return line == null ? List.of() : new NewestFirst(line.groups());
  }

  /** The groups at some positions, newest first. */
  private final class NewestFirst extends AbstractList<GroupState> implements RandomAccess {
    private final PVector<Integer> positions;

    NewestFirst(PVector<Integer> positions) {
      this.positions = positions;
    }

    @Override
    public GroupState get(int index) {
      return groups.get(positions.get(positions.size() - 1 - index));
    }

    @Override
    public int size() {
      return positions.size();
    }
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
    return "GroupHistory" + inLogOrder();
  }
}
