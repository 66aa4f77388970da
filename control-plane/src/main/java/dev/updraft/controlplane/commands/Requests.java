package dev.updraft.controlplane.commands;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.controlplane.render.AssetRef;
import dev.updraft.controlplane.state.GroupState;
import dev.updraft.controlplane.state.TokenState;
import dev.updraft.events.RolloutEvents.RolloutGuard;
import java.util.List;

/** Command inputs (already parsed and checked for shape by the API) and results. */
public final class Requests {
  private Requests() {}

  /**
   * A certificate (or, for chain mode, a certificate chain) and private key as the publisher gave them.
   *
   * @param certificatePem nullable when {@code certificateChainPem} is given: a self-signed certificate
   *     the app binary embeds
   * @param keyId nullable: {@code main}
   * @param certificateChainPem nullable: chain mode, the leaf then the intermediates (PEM), whose root the
   *     app binary embeds
   */
  public record KeyMaterial(String certificatePem, String privateKeyPem, String keyId, String certificateChainPem) {
    /** A self-signed certificate and its key. */
    public KeyMaterial(String certificatePem, String privateKeyPem, String keyId) {
      this(certificatePem, privateKeyPem, keyId, null);
    }
  }

  /** One platform of a publish, its files resolved to stored assets. */
  /**
   * One platform of a publish with its files resolved to stored assets.
   *
   * @param sourceMap nullable: the SHA-256 hex of the launch asset's source map, stored privately
   */
  public record PreparedPlatform(String platform, AssetRef launch, List<AssetRef> assets, String sourceMap) {}

  /**
   * A publish of an {@code expo export}.
   *
   * @param expoConfig nullable: becomes {@code extra.expoClient}
   * @param rolloutPercentage nullable: no rollout
   * @param guard nullable
   * @param idempotencyKey nullable
   */
  public record PublishRequest(
      String branch,
      String runtimeVersion,
      String message,
      String gitCommitHash,
      List<PreparedPlatform> platforms,
      ObjectNode expoConfig,
      Integer rolloutPercentage,
      RolloutGuard guard,
      String idempotencyKey) {}

  /** Republish an earlier group on a branch (new ids and createdAt, same assets). */
  public record RepublishRequest(
      String branch, String runtimeVersion, String sourceGroupId, List<String> platforms, String message, String idempotencyKey) {}

  /** Roll a branch back to the embedded update. */
  public record EmbeddedRollbackRequest(
      String branch, String runtimeVersion, List<String> platforms, String message, String idempotencyKey) {}

  /**
   * Map a channel.
   *
   * @param rolloutBranch nullable: no second branch
   * @param rolloutRuntimeVersion nullable: the second branch applies to every runtime version
   */
  public record ChannelRequest(
      String channel, String branch, String rolloutBranch, Integer percentage, String rolloutRuntimeVersion) {}

  /**
   * A rollout edit.
   *
   * @param percentage nullable: unchanged
   * @param guard nullable: unchanged unless {@code clearGuard}
   */
  public record RolloutEdit(Integer percentage, RolloutGuard guard, boolean clearGuard) {}

  /** A publish result: the group, and whether it already existed (idempotent retry). */
  public record Published(GroupState group, boolean replayed) {}

  /** A new token and its secret, which is shown once and never stored. */
  public record IssuedToken(TokenState token, String secret) {}

  /** A reverted rollout and the group that replaced it. */
  public record Reverted(GroupState reverted, GroupState replacement) {}
}
