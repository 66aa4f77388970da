package dev.updraft.controlplane.insights;

import dev.updraft.controlplane.sourcemaps.InvalidSourceMapException;
import dev.updraft.controlplane.sourcemaps.Original;
import dev.updraft.controlplane.sourcemaps.SourceMap;
import dev.updraft.controlplane.sourcemaps.SourceMaps;
import dev.updraft.controlplane.sourcemaps.TopFrame;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each error group's top frame (from its latest report) resolved through the source map uploaded with that report's
 * update. Blocking (reads and parses maps): runs on a worker thread. A report whose update has no map, a frame
 * without a position, or a position the map does not cover is a status, never an error.
 */
final class TopFrames {
  private static final Logger LOG = LoggerFactory.getLogger(TopFrames.class);

  /** The map was applied: {@code original} is where the frame came from. */
  static final String RESOLVED = "resolved";
  /** The report's update was published without a source map. */
  static final String NO_SOURCE_MAP = "no-source-map";
  /** The top frame has no line and column (or the group has no stack trace). */
  static final String NO_POSITION = "no-position";
  /** The map has no mapping at the frame's position (e.g. a position of another bundle). */
  static final String NOT_IN_MAP = "not-in-map";
  /** The map could not be read from the storage just now. */
  static final String UNAVAILABLE = "unavailable";

  /**
   * @param minified the top frame with its position as reported, or null
   * @param platform the report's platform (the update's), or null
   * @param original nullable: set when {@code status} is {@link #RESOLVED}
   */
  record Frame(String minified, String platform, String status, Original original) {}

  private TopFrames() {}

  /** Per group key, its top frame resolved. */
  static Map<String, Frame> resolve(SourceMaps maps, String appId, GroupState g, Iterable<ErrorGroups.Group> groups) {
    Map<String, Frame> out = new HashMap<>();
    for (ErrorGroups.Group e : groups) {
      out.put(e.key(), resolve(maps, appId, g, e.sample()));
    }
    return out;
  }

  static Frame resolve(SourceMaps maps, String appId, GroupState g, String sample) {
    if (sample == null) {
      return new Frame(null, null, NO_POSITION, null);
    }
    int nl = sample.indexOf('\n');
    String updateId = sample.substring(0, nl);
    TopFrame top = TopFrame.of(sample.substring(nl + 1));
    PlatformUpdate u = null;
    for (PlatformUpdate p : g.group().platforms()) {
      if (p.updateId().equals(updateId)) {
        u = p;
      }
    }
    String platform = u == null ? null : u.platform();
    if (top == null) {
      return new Frame(null, platform, NO_POSITION, null);
    }
    if (u == null || u.sourceMap() == null) {
      return new Frame(top.minified(), platform, NO_SOURCE_MAP, null);
    }
    SourceMap map;
    try {
      map = maps.load(appId, u.sourceMap());
    } catch (IOException | InvalidSourceMapException ex) {
      LOG.warn("source map sha256={} of app {} update {} cannot be read: {}", u.sourceMap(), appId, updateId, ex.toString());
      return new Frame(top.minified(), platform, UNAVAILABLE, null);
    }
    if (map == null) {
      return new Frame(top.minified(), platform, UNAVAILABLE, null);
    }
    Original o = map.lookup(top.line(), top.lookupColumn());
    return o == null ? new Frame(top.minified(), platform, NOT_IN_MAP, null) : new Frame(top.minified(), platform, RESOLVED, o);
  }
}
