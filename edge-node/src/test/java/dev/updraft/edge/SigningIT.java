package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.EventPayload;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.SigningEvents.SigningKeyRegistered;
import dev.updraft.events.UpdateEvents.UpdateGroup;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TestCertificates;
import dev.updraft.testing.protocol.CertificateChainVerifier;
import dev.updraft.testing.protocol.ExpoSignature;
import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An app's key ring and chain mode against a live edge fed by real Kafka: each device gets the signature
 * for the keyid its {@code expo-expect-signature} names (a missing keyid is {@code root}), verified with
 * that key's certificate as the device embedding it would; an unknown keyid is a 400 naming the app's
 * keyids; a retired key is refused. In chain mode the answer carries the leaf and intermediates in a
 * {@code certificate_chain} part, verified from the root the binary embeds with the client's chain rules
 * ({@link CertificateChainVerifier}, from CertificateChain.kt), and a new leaf verifies without a rebuild.
 */
@ExtendWith(RealInfrastructure.class)
class SigningIT {
  static final String NO_UPDATE = "{\"type\":\"noUpdateAvailable\"}";
  static TestLog log;
  static Vertx vertx;
  static EdgeNode edge;
  static EdgeHttp http;
  static Instant t;

  @BeforeAll
  static void start(Infra infra) {
    log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix());
    t = Instant.now().truncatedTo(ChronoUnit.MILLIS).minus(1, ChronoUnit.HOURS);
    vertx = Edges.vertx();
    edge = Edges.startReady(vertx, log, "signing-edge");
    http = new EdgeHttp(edge.port());
  }

  @AfterAll
  static void stop() {
    if (edge != null) {
      Edges.await(edge.close());
    }
    if (vertx != null) {
      Edges.await(vertx.close());
    }
    if (log != null) {
      log.close();
    }
  }

  static EdgeHttp.Response ask(String app, String channel, String expectSignature, String current) {
    Device d = Device.of("ios", 1).channel(channel).current(current);
    d.expectSignature = expectSignature;
    return http.get("/apps/" + app + "/manifest", d.headers());
  }

  static EdgeHttp.Response jsonOnly(String app, String expectSignature) {
    Device d = Device.of("ios", 1).accept("application/json");
    d.expectSignature = expectSignature;
    return http.get("/apps/" + app + "/manifest", d.headers());
  }

  static String keyed(String keyId) {
    return "sig, keyid=\"" + keyId + "\", alg=\"rsa-v1_5-sha256\"";
  }

  static SigningKeyRegistered key(TestSigner signer, String pem, String chain, List<Renewal> resigned) {
    return new SigningKeyRegistered(signer.keyId(), pem, signer.keyId() + "-sha", NO_UPDATE, signer.signatureHeader(NO_UPDATE),
        resigned, chain, true);
  }

  /** The signed part ({@code manifest} or {@code directive}) and the certificate_chain part of a multipart answer. */
  record Signed(MultipartPart part, ExpoSignature signature, String chain) {
    static Signed of(EdgeHttp.Response r) {
      MultipartBody b = Answers.multipart(r);
      MultipartPart p = b.part("manifest") != null ? b.part("manifest") : b.part("directive");
      MultipartPart chain = b.part("certificate_chain");
      if (chain != null) {
        assertThat(chain.contentType()).isEqualTo("application/x-pem-file");
      }
      return new Signed(p, ExpoSignature.parse(p.headerExact("expo-signature")), chain == null ? null : chain.bodyText());
    }
  }

  @Test
  void eachDeviceGetsTheSignatureOfTheKeyItEmbedsAndAnUnknownKeyidIsRefusedNamingTheAppsKeys() throws Exception {
    String app = "ring";
    TestSigner main = TestSigner.fixture();
    TestCertificates.Issued k2cert = TestCertificates.selfSigned("Edge ring k2", Duration.ofDays(30));
    TestSigner k2 = TestSigner.of("k2", k2cert.privateKey());
    SignatureVerifier mainVerifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
    SignatureVerifier k2Verifier = SignatureVerifier.fromCertificatePem(k2cert.certificatePem());
    log.publish(app, new EventPayload.AppCreated("Ring"));
    log.publish(app, key(main, Files.readString(Fixtures.certificatePem()), null, List.of()));
    // signed before the second key joined: the one signature, for keyid main
    UpdateGroup legacy = FixtureManifests.group("legacy", "1.0.0", Fixtures.update1(), t, List.of(main), null, true);
    log.publish(app, new EventPayload.UpdatePublished(legacy));
    log.publish(app, key(k2, k2cert.certificatePem(), null, List.of()));
    UpdateGroup both = FixtureManifests.group("production", "1.0.0", Fixtures.update2(), t.plusSeconds(60), List.of(main, k2), null, true);
    log.publish(app, new EventPayload.UpdatePublished(both));
    String bothIos = both.platform("ios").updateId();
    Edges.until("the group signed with both keys is served", () -> {
      EdgeHttp.Response r = ask(app, "production", keyed("k2"), null);
      return r.status() == 200 && r.text().contains(bothIos);
    }, Duration.ofSeconds(60));

    Signed forMain = Signed.of(ask(app, "production", keyed("main"), null));
    Signed forK2 = Signed.of(ask(app, "production", keyed("k2"), null));
    assertThat(forMain.part().bodyText()).isEqualTo(forK2.part().bodyText()).contains(both.platform("ios").updateId());
    assertThat(forMain.signature().keyId()).isEqualTo("main");
    assertThat(forK2.signature().keyId()).isEqualTo("k2");
    assertThat(mainVerifier.verify(forMain.part().body(), forMain.signature())).as("a binary embedding main verifies").isTrue();
    assertThat(k2Verifier.verify(forK2.part().body(), forK2.signature())).as("a binary embedding k2 verifies").isTrue();
    assertThat(k2Verifier.verify(forMain.part().body(), forMain.signature())).isFalse();
    assertThat(forMain.chain()).isNull();

    EdgeHttp.Response jsonK2 = jsonOnly(app, keyed("k2"));
    assertThat(jsonK2.status()).isEqualTo(200);
    assertThat(k2Verifier.verify(jsonK2.body(), ExpoSignature.parse(jsonK2.header("expo-signature")))).isTrue();

    String current = both.platform("ios").updateId();
    for (String[] k : new String[][] {{"main", "fixture"}, {"k2", "k2"}}) {
      Signed none = Signed.of(ask(app, "production", keyed(k[0]), current));
      assertThat(none.part().bodyText()).isEqualTo(NO_UPDATE);
      assertThat((k[0].equals("main") ? mainVerifier : k2Verifier).verify(none.part().body(), none.signature()))
          .as("noUpdateAvailable signed with %s", k[0]).isTrue();
    }

    EdgeHttp.Response root = ask(app, "production", "sig", null);
    assertThat(root.status()).as("no keyid: root, which the app has no key for").isEqualTo(400);
    assertThat(root.errorCode()).isEqualTo("unknown-key-id");
    assertThat(root.json().path("error").path("message").asText()).contains("'root'").contains("main, k2");
    EdgeHttp.Response other = ask(app, "production", keyed("nope"), null);
    assertThat(other.status()).isEqualTo(400);
    assertThat(other.json().path("error").path("message").asText()).contains("'nope'").contains("main, k2");

    Signed legacyMain = Signed.of(ask(app, "legacy", keyed("main"), null));
    assertThat(mainVerifier.verify(legacyMain.part().body(), legacyMain.signature())).isTrue();
    EdgeHttp.Response legacyK2 = ask(app, "legacy", keyed("k2"), null);
    assertThat(legacyK2.status()).as("an entry never re-signed with k2").isEqualTo(400);
    assertThat(legacyK2.errorCode()).isEqualTo("update-not-signed");

    log.publish(app, new EventPayload.SigningKeyRetired("main", null, null, null));
    Edges.until("main is retired", () -> ask(app, "production", keyed("main"), null).status() == 400, Duration.ofSeconds(60));
    assertThat(ask(app, "production", keyed("main"), null).errorCode()).isEqualTo("unknown-key-id");
    Signed still = Signed.of(ask(app, "production", keyed("k2"), null));
    assertThat(k2Verifier.verify(still.part().body(), still.signature())).isTrue();
  }

  @Test
  void inChainModeTheAnswerCarriesTheChainWhichVerifiesFromTheEmbeddedRootAndTheLeafRotatesWithoutARebuild() throws Exception {
    String app = "chain";
    TestCertificates.Chain chain = TestCertificates.chain("Edge chain test", Duration.ofDays(30));
    TestSigner leaf = TestSigner.of("chain-root", chain.leaf().privateKey());
    CertificateChainVerifier device = new CertificateChainVerifier(chain.root().certificatePem());
    log.publish(app, new EventPayload.AppCreated("Chain"));
    log.publish(app, key(leaf, chain.leaf().certificatePem(), chain.servedChainPem(), List.of()));
    UpdateGroup g = FixtureManifests.group("production", "1.0.0", Fixtures.update1(), t, List.of(leaf), null, true);
    log.publish(app, new EventPayload.UpdatePublished(g));
    String chainIos = g.platform("ios").updateId();
    Edges.until("the chain app's update is served", () -> {
      EdgeHttp.Response r = ask(app, "production", keyed("chain-root"), null);
      return r.status() == 200 && r.text().contains(chainIos);
    }, Duration.ofSeconds(60));

    Signed a = Signed.of(ask(app, "production", keyed("chain-root"), null));
    assertThat(a.chain()).isEqualTo(chain.servedChainPem());
    assertThat(device.codeSigningCertificate(a.chain())).isEqualTo(chain.leaf().certificate());
    assertThat(device.verify(a.chain(), a.part().body(), a.signature())).as("verified from the embedded root").isTrue();
    byte[] tampered = a.part().body();
    tampered[tampered.length / 2] ^= 1;
    assertThat(device.verify(a.chain(), tampered, a.signature())).isFalse();
    TestCertificates.Chain elsewhere = TestCertificates.chain("Another CA", Duration.ofDays(30));
    assertThat(new CertificateChainVerifier(elsewhere.root().certificatePem()).verify(a.chain(), a.part().body(), a.signature()))
        .as("a binary embedding another root refuses it").isFalse();
    Signed none = Signed.of(ask(app, "production", keyed("chain-root"), g.platform("ios").updateId()));
    assertThat(none.part().bodyText()).isEqualTo(NO_UPDATE);
    assertThat(device.verify(none.chain(), none.part().body(), none.signature())).isTrue();
    EdgeHttp.Response json = jsonOnly(app, keyed("chain-root"));
    assertThat(json.status()).isEqualTo(406);
    assertThat(json.errorCode()).isEqualTo("certificate-chain-needs-multipart");

    // a new leaf under the same intermediate, registered under the same keyid, everything re-signed with it
    TestCertificates.Issued next = TestCertificates.leafUnder(chain, "Edge chain test Leaf 2", Duration.ofDays(30));
    TestSigner nextLeaf = TestSigner.of("chain-root", next.privateKey());
    List<Renewal> resigned = new ArrayList<>();
    for (EventPayload.PlatformUpdate u : g.platforms()) {
      resigned.add(new Renewal(u.updateId(), u.body(), nextLeaf.signatureHeader(u.body()), Map.of()));
    }
    String nextChain = next.certificatePem() + chain.intermediate().certificatePem();
    log.publish(app, key(nextLeaf, next.certificatePem(), nextChain, resigned));
    Edges.until("the new leaf is served", () -> nextChain.equals(Signed.of(ask(app, "production", keyed("chain-root"), null)).chain()),
        Duration.ofSeconds(60));
    Signed rotated = Signed.of(ask(app, "production", keyed("chain-root"), null));
    assertThat(device.codeSigningCertificate(rotated.chain())).isEqualTo(next.certificate());
    assertThat(device.verify(rotated.chain(), rotated.part().body(), rotated.signature())).as("same root, new leaf").isTrue();
  }
}
