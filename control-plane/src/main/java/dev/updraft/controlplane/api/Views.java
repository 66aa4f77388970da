package dev.updraft.controlplane.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.commands.Requests.Published;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.history.AuditEntry;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.RolloutState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.events.ChannelEvents.ChannelMapped;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import java.time.Instant;

/** JSON shapes of the read API (documented in docs/api/openapi.yaml). */
final class Views {
  private Views() {}

  static ObjectNode app(AppState a) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("appId", a.appId());
    n.put("displayName", a.displayName());
    n.put("createdAt", time(a.createdAt()));
    n.put("createdBy", a.createdBy());
    n.put("lastSequence", a.lastSequence());
    n.put("defaultChannel", a.defaultChannel());
    SigningState s = a.newestKey();
    if (s == null) {
      n.putNull("signing");
    } else {
      ObjectNode sn = n.putObject("signing");
      sn.put("keyId", s.keyId());
      sn.put("certificateSha256", s.certificateSha256());
      sn.put("registeredAt", time(s.registeredAt()));
    }
    ArrayNode keys = n.putArray("keys");
    for (int i = 0; i < a.keys().size(); i++) {
      keys.add(key(a.keys().get(i), i == 0));
    }
    return n;
  }

  /** A registered key with its certificate (and chain). */
  static ObjectNode signing(SigningState s) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("keyId", s.keyId());
    n.put("certificateSha256", s.certificateSha256());
    n.put("certificatePem", s.certificatePem());
    n.put("registeredAt", time(s.registeredAt()));
    n.put("notAfter", time(s.notAfter()));
    n.put("chain", s.chain());
    n.put("certificateChainPem", s.certificateChainPem());
    return n;
  }

  /** One key of the ring; {@code primary}: its first key (which signs the {@code signature} field older edges read). */
  static ObjectNode key(SigningState s, boolean primary) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("keyId", s.keyId());
    n.put("certificateSha256", s.certificateSha256());
    n.put("registeredAt", time(s.registeredAt()));
    n.put("notAfter", time(s.notAfter()));
    n.put("chain", s.chain());
    n.put("primary", primary);
    return n;
  }

  /** A token as of {@code now}: {@code expiresAt} null when it never expires, {@code expired} once it has. */
  static ObjectNode token(TokenState t, Instant now) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("tokenId", t.tokenId());
    n.put("role", t.role());
    n.put("label", t.label());
    n.put("issuedAt", time(t.issuedAt()));
    n.put("issuedBy", t.issuedBy());
    n.put("revokedAt", time(t.revokedAt()));
    n.put("expiresAt", time(t.expiresAt()));
    n.put("expired", t.expiredAt(now));
    return n;
  }

  static ObjectNode channel(ChannelMapped c) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("channel", c.channel());
    n.put("branch", c.branch());
    n.put("paused", c.pausedNow());
    if (c.rollout() == null) {
      n.putNull("rollout");
    } else {
      ObjectNode r = n.putObject("rollout");
      r.put("rolloutId", c.rollout().rolloutId());
      r.put("branch", c.rollout().branch());
      r.put("percentage", c.rollout().percentage());
      r.put("runtimeVersion", c.rollout().runtimeVersion());
    }
    return n;
  }

  /** A group; with {@code detail} every platform's exact body and signature too. */
  static ObjectNode group(GroupState g, boolean detail) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("groupId", g.groupId());
    n.put("kind", g.group().kind());
    n.put("branch", g.group().branch());
    n.put("runtimeVersion", g.group().runtimeVersion());
    n.put("message", g.group().message());
    n.put("gitCommitHash", g.group().gitCommitHash());
    n.put("republishedFrom", g.group().republishedFrom());
    n.put("createdAt", g.createdAt());
    n.put("publishedAt", time(g.publishedAt()));
    n.put("actor", g.actor());
    n.put("sequence", g.sequence());
    n.put("status", g.reverted() ? "reverted" : "active");
    n.put("revertedBy", g.revertedBy());
    RolloutState r = g.rollout();
    if (r == null) {
      n.putNull("rollout");
    } else {
      ObjectNode rn = n.putObject("rollout");
      rn.put("rolloutId", r.rolloutId());
      rn.put("percentage", r.percentage());
      rn.put("controlGroupId", r.controlGroupId());
      rn.put("status", r.status());
      rn.put("startedAt", time(r.startedAt()));
      rn.put("changedAt", time(r.changedAt()));
      guard(rn, r.guard());
    }
    ArrayNode ps = n.putArray("platforms");
    for (PlatformUpdate p : g.group().platforms()) {
      ObjectNode pn = ps.addObject();
      pn.put("platform", p.platform());
      pn.put("updateId", p.updateId());
      pn.put("createdAt", p.createdAt());
      pn.put("launchAssetKey", p.launchAssetKey());
      ArrayNode keys = pn.putArray("assetKeys");
      p.assetKeys().forEach(keys::add);
      pn.put("signed", p.signature() != null || !p.signatures().isEmpty());
      ArrayNode keyIds = pn.putArray("signedWith");
      p.signatures().keySet().forEach(keyIds::add);
      if (detail) {
        pn.put("body", p.body());
        pn.put("signature", p.signature());
        ObjectNode sigs = pn.putObject("signatures");
        p.signatures().forEach(sigs::put);
      }
    }
    return n;
  }

  /** A publish's answer: the group with bodies, and whether an earlier request with its key made it. */
  static ObjectNode published(Published p) {
    ObjectNode n = group(p.group(), true);
    n.put("replayed", p.replayed());
    return n;
  }

  static void guard(ObjectNode parent, RolloutGuard g) {
    if (g == null) {
      parent.putNull("guard");
      return;
    }
    ObjectNode n = parent.putObject("guard");
    n.put("maxFailureRatePercent", g.maxFailureRatePercent());
    n.put("minDevices", g.minDevices());
    n.put("windowSeconds", g.windowSeconds());
  }

  static ObjectNode audit(AuditEntry a) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("sequence", a.sequence());
    n.put("eventId", a.eventId());
    n.put("type", a.type());
    n.put("occurredAt", time(a.occurredAt()));
    n.put("actor", a.actor());
    n.put("summary", a.summary());
    return n;
  }

  static String time(Instant t) {
    return t == null ? null : t.toString();
  }
}
