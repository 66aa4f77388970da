package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.common.ConfigException;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.events.EventCodec;
import dev.updraft.events.EventEnvelope;
import dev.updraft.events.UpdateEvents.ManifestsRenewed;
import dev.updraft.events.UpdateEvents.PlatformUpdate;
import dev.updraft.events.UpdateEvents.Renewal;
import dev.updraft.events.UpdateEvents.UpdatePublished;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.S3Bucket;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The control plane on S3 storage against a real S3 API server (S3Proxy on its filesystem backend, or
 * MinIO with the testcontainers provider), as a publisher and devices see it: a publish stores every file
 * in the bucket; every asset downloads through its manifest URL with the hash the manifest names;
 * presigned URLs are renewed (a {@code manifests.renewed} event) before they expire and the old ones stop
 * working, and renewals of many large manifests are split into events the log takes; a missing bucket or refused credentials stop the start; an upload cut half-way leaves nothing
 * a group could point at. Credentials reach the control plane only through the AWS default chain.
 */
@ExtendWith(RealInfrastructure.class)
class S3StorageIT {
  static S3Bucket.Exported credentials;
  final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void exportCredentials(S3Bucket s3) {
    credentials = s3.exportCredentials();
  }

  @AfterAll
  static void restore() {
    credentials.close();
  }

  static ControlPlaneConfig config(Infra infra, Path dir, S3Bucket s3, String... extra) {
    List<String> flags = s3.controlPlaneFlags();
    flags.addAll(List.of(extra));
    return TestSupport.config(infra, dir, flags.toArray(new String[0]));
  }

  static Http createApp(ControlPlane cp, String app) throws Exception {
    Http h = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
    Map<String, Object> body = new HashMap<>();
    body.put("appId", app);
    body.put("certificatePem", Files.readString(Fixtures.certificatePem()));
    body.put("privateKeyPem", Files.readString(Fixtures.privateKeyPkcs1Pem()));
    assertThat(h.post("/v1/apps", body).status()).isEqualTo(201);
    return h;
  }

  @Test
  void publishStoresEveryFileAndEveryAssetDownloadsThroughItsManifestUrl(Infra infra, S3Bucket s3, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config(infra, dir, s3));
    try {
      Http h = createApp(cp, "s3pub");
      ExportFixture.upload(h, "s3pub", Fixtures.update1());
      Http.Resp p = h.post("/v1/apps/s3pub/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p.status()).as(p.toString()).isEqualTo(201);

      List<String> keys = new ArrayList<>();
      try (S3Client c = s3.client()) {
        c.listObjectsV2Paginator(r -> r.bucket(s3.bucket()).prefix("assets/s3pub/")).contents().forEach(o -> keys.add(o.key()));
      }
      List<String> expected = new ArrayList<>();
      for (String path : ExportFixture.paths(Fixtures.update1())) {
        String key = "assets/s3pub/" + ExportFixture.sha256(ExportFixture.read(Fixtures.update1().resolve(path)));
        if (!expected.contains(key)) {
          expected.add(key);
        }
      }
      assertThat(keys).containsExactlyInAnyOrderElementsOf(expected);

      ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
      List<EventEnvelope> events = TestSupport.events(infra, "s3pub");
      List<PlatformUpdate> published = ((UpdatePublished) events.get(events.size() - 1).payload()).group().platforms();
      assertThat(published).hasSize(2);
      for (PlatformUpdate u : published) {
        JsonNode m = checks.manifest(u, Fixtures.update1(), "1.0.0", "production");
        checks.signature(u.body(), u.signature());
        assertEveryAssetDownloads(m, s3, "s3pub");
      }
      for (EventEnvelope e : events) {
        String json = new String(EventCodec.encode(e), StandardCharsets.UTF_8);
        assertThat(json).as("no credentials in event %s", e.type().wireName()).doesNotContain(s3.secretKey());
      }
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  @Test
  void presignedUrlsAreRenewedBeforeTheyExpireAndTheOldOnesStopWorking(Infra infra, S3Bucket s3, @TempDir Path dir) throws Exception {
    Duration ttl = Duration.ofSeconds(12);
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config(infra, dir, s3, "s3-presign-ttl", "12s"));
    try {
      Http h = createApp(cp, "s3renew");
      ExportFixture.upload(h, "s3renew", Fixtures.update1());
      Http.Resp p = h.post("/v1/apps/s3renew/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0"));
      assertThat(p.status()).as(p.toString()).isEqualTo(201);
      List<PlatformUpdate> published = ((UpdatePublished) last(TestSupport.events(infra, "s3renew")).payload()).group().platforms();
      Instant signedAt = Instant.parse(published.get(0).createdAt());
      String oldUrl = Http.JSON.readTree(published.get(0).body()).get("launchAsset").get("url").asText();
      assertThat(oldUrl).contains("X-Amz-Expires=12");
      assertThat(status(oldUrl)).isEqualTo(200);
      assertThat(TestSupport.metric(h, "updraft_control_presigned_url_life_left_ratio")).as("just rendered").isBetween(0.75, 1.0);

      // the control plane's own timer renews past half the lifetime; nobody calls it here
      ManifestsRenewed renewed = awaitRenewal(infra, "s3renew", signedAt.plus(ttl).plusSeconds(5));
      EventEnvelope renewal = lastOfType(TestSupport.events(infra, "s3renew"), "manifests.renewed");
      assertThat(renewal.actor()).isEqualTo("system");
      assertThat(renewal.occurredAt()).as("renewed before the old URLs expire").isBefore(signedAt.plus(ttl));
      assertThat(renewed.renewals()).extracting(Renewal::updateId).containsExactlyInAnyOrderElementsOf(published.stream().map(PlatformUpdate::updateId).toList());

      ManifestChecks checks = new ManifestChecks(Fixtures.certificatePem());
      List<String> renewedUrls = new ArrayList<>();
      for (Renewal r : renewed.renewals()) {
        PlatformUpdate old = published.stream().filter(u -> u.updateId().equals(r.updateId())).findFirst().orElseThrow();
        JsonNode m = checks.manifest(new PlatformUpdate(old.platform(), old.updateId(), old.createdAt(), r.body(), r.signature(), old.launchAssetKey(), old.assetKeys()), Fixtures.update1(), "1.0.0", "production");
        checks.signature(r.body(), r.signature());
        assertEveryAssetDownloads(m, s3, "s3renew");
        renewedUrls.add(m.get("launchAsset").get("url").asText());
      }
      assertThat(renewedUrls).doesNotContain(oldUrl);
      assertThat(TestSupport.metric(h, "updraft_control_presigned_url_life_left_ratio")).as("renewed").isGreaterThan(0.5);

      long wait = Duration.between(Instant.now(), signedAt.plus(ttl).plusSeconds(2)).toMillis();
      if (wait > 0) {
        Thread.sleep(wait);
      }
      assertThat(status(oldUrl)).as("the first URL has expired").isEqualTo(403);
      String current = Http.JSON.readTree(h.get("/v1/apps/s3renew/updates/" + p.json().get("groupId").asText()).json().get("platforms").get(0).get("body").asText()).get("launchAsset").get("url").asText();
      assertThat(status(current)).as("the URL the control plane serves now still works").isEqualTo(200);
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  @Test
  void renewalsOfManyLargeManifestsAreSplitIntoEventsTheLogTakes(Infra infra, S3Bucket s3, @TempDir Path dir) throws Exception {
    // renewed bodies went 50 to an event: manifests with pre-signed URLs (~500 bytes an asset) made one event above the
    // events topic's limit, the renewal was refused for every app and the URLs expired. Here the topic takes 200 kB
    // records, and eight manifests of 60 assets are ~250 kB (at 1 MiB, Kafka's default, it takes eight of 260 assets)
    String prefix = infra.topicPrefix() + "renew200k.";
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.kafkaBootstrap()))) {
      a.createTopics(List.of(new NewTopic(prefix + "updraft.events", 3, (short) 1).configs(Map.of("max.message.bytes", "200000"))))
          .all().get(30, TimeUnit.SECONDS);
    }
    Duration ttl = Duration.ofSeconds(10);
    ControlPlaneConfig config = config(infra, dir.resolve("cp"), s3, "s3-presign-ttl", "10s", "topic-prefix", prefix);
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, config);
    Map<String, String> before = new HashMap<>(); // group/platform -> its first asset's URL
    Instant lastSigned;
    Path export = ExportFixture.manyAssets(dir.resolve("export"), 60);
    try {
      Http h = createApp(cp, "bigrenew");
      ExportFixture.upload(h, "bigrenew", export);
      for (int b = 0; b < 4; b++) {
        Http.Resp p = h.post("/v1/apps/bigrenew/updates", ExportFixture.publishBody(export, "branch-" + b, "1"));
        assertThat(p.status()).as(p.toString()).isEqualTo(201);
        before.putAll(firstAssetUrls(h, p.json().get("groupId").asText()));
      }
      lastSigned = Instant.now();
    } finally {
      TestSupport.await(cp.close());
    }
    assertThat(before).hasSize(8);
    assertThat(before.values().iterator().next().length()).as("a pre-signed URL").isGreaterThan(300);
    // a control plane that was down while they came due renews all eight in one run (as one renewing hourly does
    // with everything rendered in that hour, the production default); in commands of ~400 URLs here (20,000 in
    // production), so that publishes are not held up behind a large backlog
    long wait = Duration.between(Instant.now(), lastSigned.plus(ttl.dividedBy(2)).plusMillis(200)).toMillis();
    Thread.sleep(Math.max(0, wait));
    Instant restarted = Instant.now();
    cp = TestSupport.start(vertx, config, new Hooks(Clock.systemUTC(), null, null, null, 400));
    try {
      Http h = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      Map<String, String> now = before;
      Instant deadline = Instant.now().plusSeconds(8);
      while (Instant.now().isBefore(deadline) && renewedCount(before, now) < before.size()) {
        Thread.sleep(250);
        now = new HashMap<>();
        for (String g : groups(before)) {
          now.putAll(firstAssetUrls(h, g));
        }
      }
      assertThat(renewedCount(before, now)).as("manifests renewed").isEqualTo(8);
      Map<Instant, Integer> perCommand = new TreeMap<>(); // a command's events share its time
      for (EventEnvelope e : TestSupport.events(infra, prefix + "updraft.events", "bigrenew")) {
        if (e.occurredAt().isAfter(restarted) && e.payload() instanceof ManifestsRenewed m) {
          perCommand.merge(e.occurredAt(), m.renewals().size(), Integer::sum);
        }
      }
      assertThat(perCommand.values()).as("entries of 61 URLs: seven reach 400, the eighth in the next command").containsExactly(7, 1);
      assertThat(TestSupport.metric(h, "updraft_control_presigned_url_life_left_ratio")).as("all renewed").isGreaterThan(0.5);
      for (String url : now.values()) {
        assertThat(status(url)).as("GET %s", url).isEqualTo(200);
      }
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }

  private static Map<String, String> firstAssetUrls(Http h, String groupId) throws Exception {
    Map<String, String> out = new HashMap<>();
    for (JsonNode p : h.get("/v1/apps/bigrenew/updates/" + groupId).json().get("platforms")) {
      out.put(groupId + "/" + p.get("platform").asText(), Http.JSON.readTree(p.get("body").asText()).get("assets").get(0).get("url").asText());
    }
    return out;
  }

  private static List<String> groups(Map<String, String> urls) {
    return urls.keySet().stream().map(k -> k.substring(0, k.indexOf('/'))).distinct().toList();
  }

  private static int renewedCount(Map<String, String> before, Map<String, String> now) {
    int n = 0;
    for (var e : before.entrySet()) {
      n += e.getValue().equals(now.get(e.getKey())) ? 0 : 1;
    }
    return n;
  }

  @Test
  void aMissingBucketOrRefusedCredentialsStopTheStartWithAMessageNamingTheProblem(Infra infra, S3Bucket s3, @TempDir Path dir) {
    Vertx vertx = Vertx.vertx();
    try {
      List<String> flags = s3.named("updraft-no-such-bucket").controlPlaneFlags();
      assertThatThrownBy(() -> TestSupport.start(vertx, TestSupport.config(infra, dir, flags.toArray(new String[0]))))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("--s3-bucket (UPDRAFT_S3_BUCKET) updraft-no-such-bucket does not exist");
      S3Bucket.Exported wrong = s3.withSecret("not-the-secret-0123456789").exportCredentials();
      try {
        assertThatThrownBy(() -> TestSupport.start(vertx, config(infra, dir, s3)))
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("S3 refused the AWS credentials")
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-the-secret-0123456789"));
      } finally {
        wrong.close();
      }
    } finally {
      TestSupport.await(vertx.close());
    }
  }

  @Test
  void anUploadCutHalfWayLeavesNothingAGroupCouldPointAt(Infra infra, S3Bucket s3, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    try (CuttingRelay relay = new CuttingRelay(s3.endpoint())) {
      List<String> flags = s3.controlPlaneFlags();
      flags.set(flags.indexOf("s3-endpoint") + 1, relay.url());
      ControlPlane cp = TestSupport.start(vertx, TestSupport.config(infra, dir, flags.toArray(new String[0])));
      try {
        Http h = createApp(cp, "s3cut");
        ExportFixture.upload(h, "s3cut", Fixtures.update1());
        assertThat(h.post("/v1/apps/s3cut/updates", ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0")).status()).isEqualTo(201);
        int eventsBefore = TestSupport.events(infra, "s3cut").size();

        // 1. the store's connection is cut in the middle of the control plane's upload (every retry too)
        byte[] big = new byte[256 * 1024];
        new Random(7).nextBytes(big);
        String sha = ExportFixture.sha256(big);
        relay.cutUploadsAfter(64 * 1024);
        Http.Resp cut = h.putBytes("/v1/apps/s3cut/assets/" + sha, big, "image/png");
        assertThat(cut.status()).as(cut.toString()).isEqualTo(503);
        assertThat(cut.errorCode()).isEqualTo("storage-unavailable");
        assertThat(relay.cuts()).isPositive();
        relay.cutUploadsAfter(0);
        assertThat(object(s3, "s3cut", sha)).as("no object, not even part of one").isNull();
        Http.Resp refused = h.post("/v1/apps/s3cut/updates", publishWith(Fixtures.update1(), "assets/extra.png", big));
        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.errorCode()).isEqualTo("asset-not-uploaded");

        // 2. the publisher's own upload to the control plane dies half-way (the CLI killed)
        uploadAndDie(cp.port(), "/v1/apps/s3cut/assets/" + sha, big, 100 * 1024);
        assertThat(object(s3, "s3cut", sha)).isNull();
        assertThat(h.post("/v1/apps/s3cut/updates", publishWith(Fixtures.update1(), "assets/extra.png", big)).errorCode()).isEqualTo("asset-not-uploaded");
        assertThat(TestSupport.events(infra, "s3cut")).as("no group appended").hasSize(eventsBefore);

        // 3. once the upload goes through whole, the same publish succeeds
        assertThat(h.putBytes("/v1/apps/s3cut/assets/" + sha, big, "image/png").status()).isEqualTo(201);
        assertThat(object(s3, "s3cut", sha).size()).isEqualTo(big.length);
        Http.Resp ok = h.post("/v1/apps/s3cut/updates", publishWith(Fixtures.update1(), "assets/extra.png", big));
        assertThat(ok.status()).as(ok.toString()).isEqualTo(201);
      } finally {
        TestSupport.await(cp.close());
      }
    } finally {
      TestSupport.await(vertx.close());
    }
  }

  /** The publish body of {@code export} with one more asset for both platforms. */
  private static JsonNode publishWith(Path export, String path, byte[] bytes) {
    com.fasterxml.jackson.databind.node.ObjectNode b = ExportFixture.publishBody(export, "production", "1.0.0");
    b.put("message", "with " + path);
    for (JsonNode platform : b.get("metadata").get("fileMetadata")) {
      com.fasterxml.jackson.databind.node.ObjectNode a = ((com.fasterxml.jackson.databind.node.ArrayNode) platform.get("assets")).addObject();
      a.put("path", path);
      a.put("ext", "png");
    }
    com.fasterxml.jackson.databind.node.ObjectNode f = ((com.fasterxml.jackson.databind.node.ObjectNode) b.get("files")).putObject(path);
    f.put("sha256", ExportFixture.sha256(bytes));
    f.put("size", bytes.length);
    return b;
  }

  /** Sends the head and {@code sendBytes} of the body of an upload, then closes the socket, as a killed client would. */
  private static void uploadAndDie(int port, String path, byte[] body, int sendBytes) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      OutputStream out = s.getOutputStream();
      String head = "PUT " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TestSupport.ADMIN
          + "\r\nContent-Type: image/png\r\nContent-Length: " + body.length + "\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.write(body, 0, sendBytes);
      out.flush();
      Thread.sleep(300);
    }
    Thread.sleep(500); // the control plane notices the reset and drops its temporary file
  }

  /** The object at an asset's address, or null (S3Proxy may leave its own temporary files beside it). */
  private static S3Object object(S3Bucket s3, String app, String sha) {
    String key = "assets/" + app + "/" + sha;
    try (S3Client c = s3.client()) {
      for (S3Object o : c.listObjectsV2(r -> r.bucket(s3.bucket()).prefix(key)).contents()) {
        if (o.key().equals(key)) {
          return o;
        }
      }
      return null;
    }
  }

  /** Downloads the launch asset and every asset through their URLs; the bytes hash to the manifest's hash. */
  private void assertEveryAssetDownloads(JsonNode m, S3Bucket s3, String app) throws Exception {
    List<JsonNode> assets = new ArrayList<>();
    assets.add(m.get("launchAsset"));
    m.get("assets").forEach(assets::add);
    for (JsonNode a : assets) {
      String url = a.get("url").asText();
      assertThat(url).startsWith(s3.endpoint() + "/" + s3.bucket() + "/assets/" + app + "/").contains("X-Amz-Signature=");
      assertThat(url).doesNotContain(s3.secretKey());
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).as("GET %s", url).isEqualTo(200);
      String hash = Base64.getUrlEncoder().withoutPadding().encodeToString(ExportFixture.digest("SHA-256", r.body()));
      assertThat(hash).as("the bytes behind %s", a.get("key").asText()).isEqualTo(a.get("hash").asText());
      assertThat(r.headers().firstValue("content-type")).hasValue(a.get("contentType").asText());
      assertThat(r.headers().firstValue("content-encoding"))
          .as("the presigned GET of %s carries no transfer encoding (aws-chunked) a strict client would honour", a.get("key").asText()).isEmpty();
    }
  }

  private int status(String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static ManifestsRenewed awaitRenewal(Infra infra, String app, Instant deadline) throws InterruptedException {
    while (Instant.now().isBefore(deadline)) {
      EventEnvelope e = lastOfType(TestSupport.events(infra, app), "manifests.renewed");
      if (e != null) {
        return (ManifestsRenewed) e.payload();
      }
      Thread.sleep(250);
    }
    throw new AssertionError("no manifests.renewed event for " + app + " by " + deadline);
  }

  private static EventEnvelope lastOfType(List<EventEnvelope> events, String type) {
    EventEnvelope found = null;
    for (EventEnvelope e : events) {
      if (e.type().wireName().equals(type)) {
        found = e;
      }
    }
    return found;
  }

  private static EventEnvelope last(List<EventEnvelope> events) {
    return events.get(events.size() - 1);
  }
}
