package dev.updraft.controlplane.state;

import java.util.Objects;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * Everything the control plane knows: every app, and an index of token hashes across apps. Immutable and
 * persistent (replacing one app shares the others); published by one reference swap after each event is
 * folded.
 *
 * @param apps by app id, sorted
 * @param tokensBySha256 active tokens by the SHA-256 hex of their secret
 * @param deliveries by app id: how launch assets reach devices (encodings, patches, builds); an app
 *     without an entry has none
 * @param retention by app id: pinned groups and retention policies; an app without an entry has none
 */
public record ControlState(
    PSortedMap<String, AppState> apps, PSortedMap<String, TokenRef> tokensBySha256, PSortedMap<String, Deliveries> deliveries,
    PSortedMap<String, RetentionState> retention) {
  public static final ControlState EMPTY = new ControlState(TreePMap.empty(), TreePMap.empty(), TreePMap.empty(), TreePMap.empty());

  public ControlState {
    Objects.requireNonNull(apps, "apps");
    Objects.requireNonNull(tokensBySha256, "tokensBySha256");
    Objects.requireNonNull(deliveries, "deliveries");
    Objects.requireNonNull(retention, "retention");
  }

  /** A state without retention settings. */
  public ControlState(
      PSortedMap<String, AppState> apps, PSortedMap<String, TokenRef> tokensBySha256, PSortedMap<String, Deliveries> deliveries) {
    this(apps, tokensBySha256, deliveries, TreePMap.empty());
  }

  /** A state without deliveries. */
  public ControlState(PSortedMap<String, AppState> apps, PSortedMap<String, TokenRef> tokensBySha256) {
    this(apps, tokensBySha256, TreePMap.empty());
  }

  /** The app's pinned groups and retention policies ({@link RetentionState#EMPTY} when it has none). */
  public RetentionState retention(String appId) {
    RetentionState r = retention.get(appId);
    return r == null ? RetentionState.EMPTY : r;
  }

  /** This state with the app's retention settings replaced (none kept for {@link RetentionState#EMPTY}). */
  ControlState withRetention(String appId, RetentionState r) {
    return new ControlState(apps, tokensBySha256, deliveries, r.equals(RetentionState.EMPTY) ? retention.minus(appId) : retention.plus(appId, r));
  }

  /** This state without the app: its tokens leave the index, its deliveries and retention settings go. */
  ControlState without(AppState app) {
    PSortedMap<String, TokenRef> index = tokensBySha256;
    for (TokenState t : app.tokens().values()) {
      TokenRef ref = index.get(t.secretSha256());
      if (ref != null && ref.appId().equals(app.appId())) {
        index = index.minus(t.secretSha256());
      }
    }
    return new ControlState(
        apps.minus(app.appId()), index, deliveries.minus(app.appId()), retention.minus(app.appId()));
  }

  /** The app's deliveries ({@link Deliveries#EMPTY} when it has none). */
  public Deliveries deliveries(String appId) {
    Deliveries d = deliveries.get(appId);
    return d == null ? Deliveries.EMPTY : d;
  }

  /** This state with the app's deliveries replaced (none kept for {@link Deliveries#EMPTY}). */
  ControlState withDeliveries(String appId, Deliveries d) {
    return new ControlState(apps, tokensBySha256, d.equals(Deliveries.EMPTY) ? deliveries.minus(appId) : deliveries.plus(appId, d), retention);
  }

  /** The app with {@code appId}, or null. */
  public AppState app(String appId) {
    return apps.get(appId);
  }

  /** This state with {@code app} replacing the app of its id (or added). */
  ControlState with(AppState app) {
    return new ControlState(apps.plus(app.appId(), app), tokensBySha256, deliveries, retention);
  }

  /** This state with {@code app} and another token index. */
  ControlState with(AppState app, PSortedMap<String, TokenRef> index) {
    return new ControlState(apps.plus(app.appId(), app), index, deliveries, retention);
  }
}
