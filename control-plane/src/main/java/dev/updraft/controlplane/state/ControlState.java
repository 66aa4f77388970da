package dev.updraft.controlplane.state;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the control plane knows: every app, and an index of token hashes across apps. Immutable;
 * published by one reference swap after each event is folded.
 *
 * @param apps by app id, sorted
 * @param tokensBySha256 active tokens by the SHA-256 hex of their secret
 */
public record ControlState(Map<String, AppState> apps, Map<String, TokenRef> tokensBySha256) {
  public static final ControlState EMPTY = new ControlState(Map.of(), Map.of());

  public ControlState {
    apps = Collections.unmodifiableMap(new TreeMap<>(apps));
    tokensBySha256 = Collections.unmodifiableMap(new TreeMap<>(tokensBySha256));
  }

  /** The app with {@code appId}, or null. */
  public AppState app(String appId) {
    return apps.get(appId);
  }
}
