package dev.updraft.controlplane.state;

import dev.updraft.events.AppSnapshot;
import dev.updraft.events.AssetEvents.BuildRegistered;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.pcollections.PSortedMap;
import org.pcollections.TreePMap;

/**
 * An app's state to and from its snapshot ({@link AppSnapshot}): every component of {@link AppState}, the
 * app's {@link Deliveries} and its {@link RetentionState}, except the audit log (history: it lives in
 * PostgreSQL). Pure functions.
 */
public final class Snapshots {
  /**
   * The oldest snapshot format the control plane restores: v1 lacks the pins and retention policies, so an
   * app whose snapshot is v1 is replayed (its pinned groups would otherwise leave with the window).
   */
  public static final int OLDEST_USABLE = 2;

  private Snapshots() {}

  /** The snapshot of {@code appId} as of the event at {@code offset} of {@code partition}, or null when the app is unknown. */
  public static AppSnapshot of(ControlState s, String appId, int partition, long offset) {
    AppState a = s.app(appId);
    if (a == null) {
      return null;
    }
    List<AppSnapshot.Token> tokens = new ArrayList<>();
    for (TokenState t : a.tokens().values()) {
      tokens.add(new AppSnapshot.Token(t.tokenId(), t.role(), t.label(), t.secretSha256(), text(t.issuedAt()), t.issuedBy(), text(t.revokedAt()),
          text(t.expiresAt())));
    }
    List<AppSnapshot.Key> keys = new ArrayList<>();
    for (SigningState k : a.keys()) {
      keys.add(new AppSnapshot.Key(k.keyId(), k.certificatePem(), k.certificateSha256(), k.noUpdateDirectiveBody(),
          k.noUpdateDirectiveSignature(), text(k.registeredAt()), k.certificateChainPem()));
    }
    List<AppSnapshot.Group> groups = new ArrayList<>();
    for (GroupState g : a.groups()) {
      groups.add(group(g));
    }
    List<AppSnapshot.IdempotencyKey> idem = new ArrayList<>();
    for (IdempotencyWindow.Entry e : a.idempotencyKeys().entries()) {
      idem.add(new AppSnapshot.IdempotencyKey(e.key(), e.groupId(), e.sequence(), text(e.publishedAt())));
    }
    Deliveries d = s.deliveries(appId);
    List<AppSnapshot.LaunchAsset> assets = new ArrayList<>();
    for (Map.Entry<String, dev.updraft.events.EventPayload.LaunchAssetStored> l : d.launchAssets().entrySet()) {
      assets.add(new AppSnapshot.LaunchAsset(l.getValue(), text(d.launchAt().get(l.getKey()))));
    }
    List<AppSnapshot.GroupPatches> patches = new ArrayList<>();
    for (Map.Entry<String, dev.updraft.events.EventPayload.PatchesComputed> p : d.patches().entrySet()) {
      patches.add(new AppSnapshot.GroupPatches(p.getValue(), text(d.patchesAt().get(p.getKey()))));
    }
    RetentionState r = s.retention(appId);
    List<AppSnapshot.RetentionPolicy> policies = new ArrayList<>();
    for (RetentionState.Policy p : r.policies().values()) {
      policies.add(new AppSnapshot.RetentionPolicy(p.branch(), p.keep() == Integer.MAX_VALUE ? null : p.keep(),
          p.maxAge() == null ? null : p.maxAge().toSeconds(), text(p.setAt()), p.setBy()));
    }
    return new AppSnapshot(
        AppSnapshot.VERSION, appId, partition, offset, a.lastSequence(), a.displayName(), text(a.createdAt()), a.createdBy(),
        a.defaultChannel(), tokens, keys, new ArrayList<>(a.channels().values()), groups, idem, assets, patches,
        new ArrayList<>(d.builds().values()), new ArrayList<>(r.pinned()), policies);
  }

  /** The pins and retention policies a snapshot carries (none in a v1 snapshot). */
  private static RetentionState retention(AppSnapshot snap) {
    RetentionState r = RetentionState.EMPTY;
    for (String id : snap.pinned()) {
      r = r.withPin(id, true);
    }
    for (AppSnapshot.RetentionPolicy p : snap.retentionPolicies()) {
      r = r.withPolicy(p.branch(), new RetentionState.Policy(p.branch(), p.keep() == null ? Integer.MAX_VALUE : p.keep(),
          p.maxAgeSeconds() == null ? null : Duration.ofSeconds(p.maxAgeSeconds()), instant(p.setAt()), p.setBy()));
    }
    return r;
  }

  private static AppSnapshot.Group group(GroupState g) {
    Map<String, String> rendered = new TreeMap<>();
    for (Map.Entry<String, Instant> r : g.renderedAt().entrySet()) {
      rendered.put(r.getKey(), text(r.getValue()));
    }
    RolloutState r = g.rollout();
    AppSnapshot.RolloutStatus rollout = r == null ? null
        : new AppSnapshot.RolloutStatus(r.rolloutId(), r.percentage(), r.controlGroupId(), r.guard(), r.status(), text(r.startedAt()),
            text(r.changedAt()));
    return new AppSnapshot.Group(g.group(), g.sequence(), text(g.publishedAt()), g.actor(), rendered, rollout, g.revertedBy());
  }

  /**
   * {@code s} with the app of {@code snap} replaced by the snapshot's state, its deliveries, its pins and
   * retention policies, and its tokens
   * in the index.
   */
  public static ControlState restore(ControlState s, AppSnapshot snap) {
    AppState old = s.app(snap.appId());
    PSortedMap<String, TokenRef> index = s.tokensBySha256();
    if (old != null) {
      for (TokenState t : old.tokens().values()) {
        index = index.minus(t.secretSha256());
      }
    }
    PSortedMap<String, TokenState> tokens = TreePMap.empty();
    for (AppSnapshot.Token t : snap.tokens()) {
      TokenState ts = new TokenState(t.tokenId(), t.role(), t.label(), t.secretSha256(), instant(t.issuedAt()), t.issuedBy(), instant(t.revokedAt()),
          TokenState.parseExpiry(t.expiresAt()));
      tokens = tokens.plus(t.tokenId(), ts);
      if (!ts.revoked()) {
        index = index.plus(ts.secretSha256(), new TokenRef(snap.appId(), ts.tokenId(), ts.role(), ts.expiresAt()));
      }
    }
    List<SigningState> keys = new ArrayList<>();
    for (AppSnapshot.Key k : snap.keys()) {
      String chain = k.certificateChainPem();
      keys.add(new SigningState(k.keyId(), k.certificatePem(), k.certificateSha256(), k.noUpdateDirectiveBody(), k.noUpdateDirectiveSignature(),
          instant(k.registeredAt()), chain, SigningState.earliestNotAfter(chain != null ? chain : k.certificatePem())));
    }
    PSortedMap<String, ChannelMapped> channels = TreePMap.empty();
    for (ChannelMapped c : snap.channels()) {
      channels = channels.plus(c.channel(), c);
    }
    List<GroupState> groups = new ArrayList<>();
    for (AppSnapshot.Group g : snap.groups()) {
      groups.add(group(g));
    }
    List<IdempotencyWindow.Entry> idem = new ArrayList<>();
    for (AppSnapshot.IdempotencyKey k : snap.idempotencyKeys()) {
      idem.add(new IdempotencyWindow.Entry(k.key(), k.groupId(), k.sequence(), instant(k.publishedAt())));
    }
    AppState app = new AppState(
        snap.appId(), snap.displayName(), instant(snap.createdAt()), snap.createdBy(), snap.lastSequence(), tokens, keys, snap.defaultChannel(),
        channels, GroupHistory.of(groups), IdempotencyWindow.of(idem));
    Deliveries d = Deliveries.EMPTY;
    for (AppSnapshot.LaunchAsset l : snap.launchAssets()) {
      d = d.stored(l.stored(), instant(l.at()));
    }
    for (AppSnapshot.GroupPatches p : snap.patches()) {
      d = d.computed(p.computed(), instant(p.at()));
    }
    for (BuildRegistered b : snap.builds()) {
      d = d.registered(b);
    }
    return s.with(app, index).withDeliveries(snap.appId(), d).withRetention(snap.appId(), retention(snap));
  }

  private static GroupState group(AppSnapshot.Group g) {
    Map<String, Instant> rendered = new TreeMap<>();
    for (Map.Entry<String, String> r : g.renderedAt().entrySet()) {
      rendered.put(r.getKey(), instant(r.getValue()));
    }
    AppSnapshot.RolloutStatus r = g.rollout();
    RolloutState rollout = r == null ? null
        : new RolloutState(r.rolloutId(), r.percentage(), r.controlGroupId(), r.guard(), r.status(), instant(r.startedAt()), instant(r.changedAt()));
    return new GroupState(g.group(), g.sequence(), instant(g.publishedAt()), g.actor(), rendered, rollout, g.revertedBy());
  }

  private static String text(Instant t) {
    return t == null ? null : t.toString();
  }

  private static Instant instant(String t) {
    return t == null ? null : Instant.parse(t);
  }
}
