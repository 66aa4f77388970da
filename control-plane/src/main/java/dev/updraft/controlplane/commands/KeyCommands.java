package dev.updraft.controlplane.commands;

import dev.updraft.controlplane.commands.Requests.KeyMaterial;
import dev.updraft.controlplane.core.CommandException;
import dev.updraft.controlplane.render.ManifestRenderer;
import dev.updraft.controlplane.signing.CertificateCheck;
import dev.updraft.controlplane.signing.KeyMaterialException;
import dev.updraft.controlplane.signing.KeyStore;
import dev.updraft.controlplane.signing.PemKeys;
import dev.updraft.controlplane.signing.Signer;
import dev.updraft.controlplane.state.AppState;
import dev.updraft.controlplane.state.SigningState;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.SigningEvents.SigningKeyRetired;
import dev.updraft.events.FailedUpdates;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An app's key ring: several active code-signing keys, each with its {@code keyid}. Every body is signed
 * with every key of the ring (at publish, and when a key joins), so that binaries embedding any of the
 * certificates keep verifying what edges serve them; edges answer each device with the signature for the
 * keyid it asks for. Thread-safe.
 */
public final class KeyCommands {
  private final Vertx vertx;
  private final CommandProcessor processor;
  private final KeyStore keys;
  private final Groups groups;
  private final KeyExpiry expiry;

  KeyCommands(Vertx vertx, CommandProcessor processor, KeyStore keys, Groups groups, KeyExpiry expiry) {
    this.vertx = vertx;
    this.processor = processor;
    this.keys = keys;
    this.groups = groups;
    this.expiry = expiry;
  }

  /** The certificate-expiry gauge (refreshed after every key command). */
  public KeyExpiry expiry() {
    return expiry;
  }

  /**
   * Adds a key to an app's ring, or replaces the key of the same keyid (a chain's leaf rotating, a
   * certificate renewed); everything a device can be served is re-signed with every key of the new ring.
   */
  public Future<SigningState> registerKey(String actor, String appId, KeyMaterial key) {
    return processor.submit(
            vertx,
            "register-key",
            (s, now) -> {
              AppState app = Prologue.app(s, appId);
              List<PlatformUpdate> servable = new ArrayList<>();
              for (AppState.Servable sv : app.servable(FailedUpdates.DEPTH)) {
                servable.add(app.group(sv.groupId()).platform(sv.platform()));
              }
              SigningKeyRegistered k = registration(appId, app.keys(), servable, key, now);
              return Plan.of(split(appId, actor, k), st -> st.app(appId).key(k.keyId()));
            })
        .onSuccess(k -> expiry.refresh());
  }

  /**
   * The registration as events the log takes: the re-signed bodies (every servable manifest, pre-signed URLs
   * and all) could make one event larger than the events topic's limit for an app with many branches, so the
   * registration carries the first run of them and {@code manifests.renewed} events the rest, in the same
   * transaction (folds apply a renewal's signatures alike; edges read none of them before the commit). No device
   * asks for the joining key's signature before builds embedding it ship, so one folded between them is not served.
   */
  private List<NewEvent> split(String appId, String actor, SigningKeyRegistered k) {
    List<List<Renewal>> runs = Renewals.chunks(k.resigned(), processor);
    if (runs.size() <= 1) {
      return List.of(new NewEvent(appId, actor, k));
    }
    List<NewEvent> out = new ArrayList<>();
    out.add(new NewEvent(appId, actor, k.withResigned(runs.get(0))));
    for (int i = 1; i < runs.size(); i++) {
      out.add(new NewEvent(appId, actor, new ManifestsRenewed(
          "re-signed with every key of the ring after keyid " + k.keyId() + " joined (" + (i + 1) + " of " + runs.size() + ")",
          runs.get(i))));
    }
    return out;
  }

  /**
   * Takes a key out of an app's ring: nothing is signed with it any more, and devices asking for its keyid
   * are refused. 404 for a keyid the app does not have, 409 for its last key.
   *
   * @return the ring after
   */
  public Future<List<SigningState>> retireKey(String actor, String appId, String keyId) {
    return retireKey(actor, appId, new SigningKeyRetired(keyId, null, null, null));
  }

  /** {@link #retireKey(String, String, String)} appending {@code retired} (a forced one records what it overrode). */
  public Future<List<SigningState>> retireKey(String actor, String appId, SigningKeyRetired retired) {
    String keyId = retired.keyId();
    return processor.submit(
            vertx,
            "retire-key",
            (s, now) -> {
              AppState app = Prologue.app(s, appId);
              if (app.key(keyId) == null) {
                throw CommandException.notFound(
                    "key-not-found", "app " + appId + " has no key with keyid " + keyId + " (list them with `updraft keys list --app " + appId + "`)");
              }
              if (app.keys().size() == 1) {
                throw CommandException.conflict(
                    "last-key",
                    "keyid " + keyId + " is the only key of app " + appId + ": retiring it would leave devices that expect signatures "
                        + "with nothing they can verify; register the next key first (updraft keys register --key-id)");
              }
              return Plan.of(List.of(new NewEvent(appId, actor, retired)), st -> st.app(appId).keys());
            })
        .onSuccess(r -> expiry.refresh());
  }

  /**
   * The {@code signing-key.registered} event for {@code key} joining {@code ring}: the key material checked
   * as devices check it, the private key stored, the no-update directive signed with the new key and
   * {@code toResign} signed with every key of the ring after the change.
   */
  SigningKeyRegistered registration(String appId, List<SigningState> ring, List<PlatformUpdate> toResign, KeyMaterial key,
      Instant now) {
    String keyId = Validate.keyId(key.keyId());
    if (key.privateKeyPem() == null || (key.certificatePem() == null) == (key.certificateChainPem() == null)) {
      throw CommandException.badRequest(
          "missing-field", "give privateKeyPem and either certificatePem (a self-signed certificate the app embeds) or "
              + "certificateChainPem (leaf then intermediates, for chain mode), not both");
    }
    X509Certificate leaf;
    String chainPem = null;
    PrivateKey pk;
    try {
      pk = PemKeys.parsePrivateKey(key.privateKeyPem());
      if (key.certificateChainPem() != null) {
        List<X509Certificate> chain = PemKeys.parseCertificates(key.certificateChainPem());
        CertificateCheck.validateChain(chain, pk, now);
        leaf = chain.get(0);
        StringBuilder sb = new StringBuilder();
        for (X509Certificate c : chain) {
          sb.append(PemKeys.toPem(c));
        }
        chainPem = sb.toString();
      } else {
        leaf = PemKeys.parseCertificate(key.certificatePem());
        CertificateCheck.validate(leaf, pk, now);
      }
    } catch (KeyMaterialException e) {
      throw CommandException.badRequest(e.code(), e.getMessage());
    }
    String certSha = PemKeys.sha256Hex(leaf);
    if (!keys.maySave()) {
      throw new CommandException(409, "master-key-required", "this control plane has no --master-key (UPDRAFT_MASTER_KEY), so it"
          + " refuses to store app " + appId + "'s private key in clear on disk; start it with --master-key (openssl rand -base64 32),"
          + " or with --allow-plaintext-keys where keys in clear are acceptable (a test bench)");
    }
    try {
      keys.save(appId, certSha, pk);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write key store dir=" + keys.directory() + " appId=" + appId + ": " + e.getMessage(), e);
    }
    String leafPem = PemKeys.toPem(leaf);
    List<SigningState> next = new ArrayList<>(ring);
    SigningState joining = new SigningState(keyId, leafPem, certSha, null, null, now, chainPem, null);
    boolean replaced = false;
    for (int i = 0; i < next.size(); i++) {
      if (next.get(i).keyId().equals(keyId)) {
        next.set(i, joining);
        replaced = true;
      }
    }
    if (!replaced) {
      next.add(joining);
    }
    Groups.Sign sign = groups.signer(appId, next);
    List<Renewal> resigned = new ArrayList<>();
    for (PlatformUpdate p : toResign) {
      resigned.add(sign.sign(p.body()).renewal(p.updateId(), p.body()));
    }
    String noUpdate = ManifestRenderer.NO_UPDATE_AVAILABLE;
    return new SigningKeyRegistered(
        keyId, leafPem, certSha, noUpdate, Signer.signatureHeader(pk, keyId, noUpdate), resigned, chainPem, true);
  }
}
