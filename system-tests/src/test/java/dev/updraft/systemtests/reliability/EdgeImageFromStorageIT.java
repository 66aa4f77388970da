package dev.updraft.systemtests.reliability;

import static dev.updraft.systemtests.reliability.StaticEdges.get;
import static dev.updraft.systemtests.reliability.StaticEdges.metrics;
import static dev.updraft.systemtests.reliability.StaticEdges.offsets;
import static dev.updraft.systemtests.reliability.StaticEdges.readyz;
import static dev.updraft.systemtests.reliability.StaticEdges.total;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.embedded.EmbeddedKafka;
import dev.updraft.embedded.Ports;
import dev.updraft.events.ImagePointer;
import dev.updraft.events.ImageSeal;
import dev.updraft.events.StoredImage;
import dev.updraft.events.Topics;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.S3Bucket;
import dev.updraft.testing.protocol.SignatureVerifier;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Static stability for a new edge with nothing of its own: two control planes on one Kafka, one on local storage and
 * one on S3 (S3Proxy), each write their edge image with {@code --edge-image-key}. After a publish to each, Kafka is
 * stopped and NEW edge processes without {@code --data-dir}, each given only {@code --image-source} (the local
 * directory; {@code s3://} with the storage's credentials) and the key, serve the last publish signed within 30 s of
 * their start; {@code /readyz} says {@code servingStoredImage} with source {@code storage}, the image's age (at least
 * the outage so far) and its offsets (the events topic's end before the outage). A third edge given a copy of the
 * local images whose image was changed (its pointer updated to the changed bytes' digest) refuses it: never ready,
 * device requests 503, {@code updraft_edge_image_source_refusals_total{reason="tampered"}} 1 and a log line saying so.
 * Kafka comes back: the edges catch up from the image's offsets (no event read before them) and serve the next publish.
 */
@ExtendWith(RealInfrastructure.class)
class EdgeImageFromStorageIT {
  static final String APP = "imaged";
  static final String LOCAL = "imgl.";
  static final String S3 = "imgs.";
  static final Duration START_BOUND = Duration.ofSeconds(30);

  @Test
  void newEdgesWithoutADataDirServeTheControlPlanesImageDuringAKafkaOutageAndRefuseATamperedOne(S3Bucket s3, @TempDir Path dir)
      throws Exception {
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    String key = Base64.getEncoder().encodeToString(raw);
    ImageSeal seal = ImageSeal.of(key, "test key");
    Vertx vertx = Vertx.vertx();
    EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0);
    String bootstrap = kafka.bootstrapServers();
    List<ControlPlane> cps = new ArrayList<>();
    List<ChildJvm> edges = new ArrayList<>();
    S3Bucket.Exported credentials = s3.exportCredentials(); // the control plane's S3 client reads the AWS default chain
    try (S3Client s3Client = s3.client()) {
      String[] image = {"edge-image-key", key, "edge-image-interval", "1s"};
      // the local one writes app snapshots after every other event: its image starts from snapshot records, the S3 one's from events only
      cps.add(Services.controlPlane(vertx, bootstrap, LOCAL, dir.resolve("cp-local"), "edge-image-key", key, "edge-image-interval", "1s",
          "snapshot-interval-events", "2"));
      List<String> s3Flags = s3.controlPlaneFlags();
      s3Flags.addAll(List.of(image));
      cps.add(Services.controlPlane(vertx, bootstrap, S3, dir.resolve("cp-s3"), s3Flags.toArray(String[]::new)));
      SignatureVerifier verifier = SignatureVerifier.fromCertificatePem(Fixtures.certificatePem());
      String firstLocal = Publishing.updateIds(Publishing.appWithUpdate("http://127.0.0.1:" + cps.get(0).port(), APP, true, "main")).get(0);
      String firstS3 = Publishing.updateIds(Publishing.appWithUpdate("http://127.0.0.1:" + cps.get(1).port(), APP, true, "main")).get(0);

      Path localImages = dir.resolve("cp-local").resolve("assets").resolve("_edge-images");
      Function<String, byte[]> inS3 = name -> {
        try {
          return s3Client.getObjectAsBytes(r -> r.bucket(s3.bucket()).key("edge-images/" + name)).asByteArray();
        } catch (SdkException e) {
          return null;
        }
      };
      Map<Integer, Long> endLocal = Logs.endOffsets(bootstrap, Topics.events(LOCAL));
      Map<Integer, Long> endS3 = Logs.endOffsets(bootstrap, Topics.events(S3));
      awaitImageCovering("local", name -> read(localImages.resolve(name)), seal, endLocal, true);
      awaitImageCovering("s3", inS3, seal, endS3, false);
      long imagesWritten = System.nanoTime();

      kafka.stop();
      long stopped = System.nanoTime();
      // a copy of the local images whose newest image is changed, the pointer updated to the changed bytes
      Path tampered = dir.resolve("tampered-images");
      Files.createDirectories(tampered);
      ImagePointer p = ImagePointer.decode(Files.readAllBytes(localImages.resolve(ImagePointer.NAME)));
      byte[] changed = Files.readAllBytes(localImages.resolve(p.name()));
      changed[changed.length / 2] ^= 0x01;
      Files.write(tampered.resolve(p.name()), changed);
      Files.write(tampered.resolve(ImagePointer.NAME), new ImagePointer(p.name(), sha256(changed), changed.length, p.writtenAtMillis()).encode());

      int portL = Ports.freePort();
      int portS = Ports.freePort();
      int portT = Ports.freePort();
      long t0 = System.nanoTime();
      ChildJvm l = StaticEdges.start(dir, edges, "img-local", portL, bootstrap, LOCAL, Map.of(),
          "--image-source", localImages.toUri().toString(), "--edge-image-key", key);
      ChildJvm s = StaticEdges.start(dir, edges, "img-s3", portS, bootstrap, S3,
          Map.of("AWS_ACCESS_KEY_ID", s3.accessKey(), "AWS_SECRET_ACCESS_KEY", s3.secretKey()),
          "--image-source", "s3://" + s3.bucket() + "/edge-images/", "--image-s3-endpoint", s3.endpoint(), "--image-s3-region", s3.region(),
          "--edge-image-key", key);
      ChildJvm t = StaticEdges.start(dir, edges, "img-tampered", portT, bootstrap, LOCAL, Map.of(),
          "--image-source", tampered.toString(), "--edge-image-key", key);
      long readyL = l.awaitOk(readyz(portL), START_BOUND);
      long readyS = s.awaitOk(readyz(portS), START_BOUND);
      Publishing.assertServesSigned(portL, APP, "main", firstLocal, verifier);
      Publishing.assertServesSigned(portS, APP, "main", firstS3, verifier);
      long servedMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(servedMs).as("both publishes served, signed, within 30 s of the edges' start").isLessThanOrEqualTo(START_BOUND.toMillis());
      JsonNode readyLocal = get(readyz(portL));
      JsonNode readyS3 = get(readyz(portS));
      double sinceStop = (System.nanoTime() - stopped) / 1e9;
      for (JsonNode r : List.of(readyLocal, readyS3)) {
        assertThat(r.path("servingStoredImage").asBoolean()).as(r.toString()).isTrue();
        assertThat(r.path("caughtUp").asBoolean()).as(r.toString()).isFalse();
        assertThat(r.path("image").path("source").asText()).as(r.toString()).isEqualTo("storage");
        assertThat(r.path("image").path("ageSeconds").asDouble()).as("age: at least the outage so far").isGreaterThanOrEqualTo(sinceStop);
      }
      assertThat(readyS3.toString()).as("/readyz is public: no storage location").doesNotContain(s3.bucket()).doesNotContain(s3.secretKey());
      assertThat(s.output()).contains("serving the image from storage s3://" + s3.bucket() + "/edge-images/");
      assertThat(offsets(readyLocal)).as("the local image covers the log's end before the outage").isEqualTo(endLocal);
      assertThat(offsets(readyS3)).as("the S3 image covers the log's end before the outage").isEqualTo(endS3);
      assertThat(Metrics.value(Metrics.scrape(metrics(portS)), "updraft_edge_image_stored_serving")).isEqualTo(1.0);
      assertThat(Metrics.value(Metrics.scrape(metrics(portS)), "updraft_edge_log_staleness_seconds")).isGreaterThanOrEqualTo(sinceStop);

      // the tampered image: refused (counted, logged), never served
      Services.until("edge t refused its image", () -> Metrics.value(Metrics.scrape(metrics(portT)),
          "updraft_edge_image_source_refusals_total{reason=\"tampered\"}") == 1.0, START_BOUND);
      assertThat(t.output()).contains("refused, not served (tampered:");
      assertThat(ChildJvm.status(readyz(portT))).as("not ready: nothing to serve without Kafka").isEqualTo(503);
      try (RawHttp c = new RawHttp(portT, 10_000)) {
        RawHttp.Response r = c.exchange(Publishing.deviceRequest(APP, "main", "00000000-0000-4000-8000-00000000a11a"));
        assertThat(r.status()).as(r.text()).isEqualTo(503);
      }
      t.close();

      kafka.restart();
      long back = System.nanoTime();
      for (int port : new int[] {portL, portS}) {
        Services.until("edge " + port + " caught up with Kafka", () -> get(readyz(port)).path("caughtUp").asBoolean(), Duration.ofSeconds(60));
        JsonNode after = get(readyz(port));
        assertThat(after.path("servingStoredImage").asBoolean()).isFalse();
        assertThat(after.path("eventsReplayed").asLong()).as("events read to catch up: none before the image's offsets").isZero();
      }
      long caughtUpMs = (System.nanoTime() - back) / 1_000_000;
      String secondLocal = Publishing.updateIds(Publishing.publish("http://127.0.0.1:" + cps.get(0).port(), APP, "main", 2)).get(0);
      String secondS3 = Publishing.updateIds(Publishing.publish("http://127.0.0.1:" + cps.get(1).port(), APP, "main", 2)).get(0);
      Services.until("the edges serve the publishes made after Kafka returned", () -> {
        Publishing.assertServesSigned(portL, APP, "main", secondLocal, verifier);
        Publishing.assertServesSigned(portS, APP, "main", secondS3, verifier);
        return true;
      }, Duration.ofSeconds(30));
      System.out.printf("edge image from storage: images written %d ms before Kafka stopped; new edges without --data-dir ready in %d ms"
              + " (local directory) and %d ms (S3), both publishes served signed %d ms after their start; /readyz source=storage age"
              + " %.1f s offsets %s / %s; tampered image refused (reason tampered), never served; Kafka back: caught up in %d ms"
              + " reading 0 events (the logs hold %d and %d records), the next publishes served%n",
          (stopped - imagesWritten) / 1_000_000, readyL, readyS, servedMs, readyS3.path("image").path("ageSeconds").asDouble(),
          offsets(readyLocal), offsets(readyS3), caughtUpMs, total(endLocal), total(endS3));
    } finally {
      for (ChildJvm e : edges) {
        e.close();
      }
      for (ControlPlane cp : cps) {
        Services.await(cp.close());
      }
      kafka.close();
      Services.await(vertx.close());
      credentials.close();
    }
  }

  /**
   * Waits until the pointer in {@code storage} names an image, opened with the key, whose offsets are {@code end} (and
   * that starts from snapshot records, when {@code withSnapshots}).
   */
  private static void awaitImageCovering(String what, Function<String, byte[]> storage, ImageSeal seal, Map<Integer, Long> end,
      boolean withSnapshots) {
    Services.until("the " + what + " control plane wrote an image covering " + end + (withSnapshots ? " from snapshots" : ""), () -> {
      byte[] pointer = storage.apply(ImagePointer.NAME);
      if (pointer == null) {
        return false;
      }
      byte[] sealed = storage.apply(ImagePointer.decode(pointer).name());
      if (sealed == null || !(seal.open(sealed) instanceof ImageSeal.Opened.Image opened)) {
        return false;
      }
      StoredImage image = ((StoredImage.Read.Loaded) StoredImage.decode(opened.bytes())).image();
      return image.nextOffsets().equals(end) && image.snapshotRecords().isEmpty() != withSnapshots;
    }, Duration.ofSeconds(60));
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (java.io.IOException e) {
      return null;
    }
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
