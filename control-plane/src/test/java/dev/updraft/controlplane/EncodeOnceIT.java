package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local storage, no edges: the encoded copies of a bundle are made once, however many groups publish the
 * same bytes again (nothing records them in events without edges, so each group's job used to encode the
 * bundle and the other compressible assets again: seconds of CPU per publish at the best levels).
 */
@ExtendWith(RealInfrastructure.class)
class EncodeOnceIT {

  private static void awaitJobs(Http http, double jobs) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (TestSupport.metric(http, "updraft_control_patch_job_seconds_count") < jobs) {
      assertThat(System.nanoTime() - deadline).as("post-publish jobs done: " + jobs).isNegative();
      Thread.sleep(100);
    }
  }

  @Test
  void aBundlePublishedAgainByALaterGroupIsNotEncodedAgain(Infra infra, @TempDir Path dir) throws Exception {
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.await(ControlPlane.start(vertx, TestSupport.config(infra, dir, "asset-encoding", "fast")));
    try {
      Http admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      assertThat(admin.post("/v1/apps", Map.of("appId", "again")).status()).isEqualTo(201);
      ExportFixture.upload(admin, "again", Fixtures.update1());
      ObjectNode body = ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0");
      assertThat(admin.post("/v1/apps/again/updates", body).status()).isEqualTo(201);
      awaitJobs(admin, 1);
      double first = TestSupport.metric(admin, "updraft_control_encoded_bytes_total");
      assertThat(first).as("the first group's copies are made").isPositive();

      ObjectNode same = ExportFixture.publishBody(Fixtures.update1(), "production", "1.0.0");
      same.put("message", "the same bytes again");
      assertThat(admin.post("/v1/apps/again/updates", same).status()).isEqualTo(201);
      awaitJobs(admin, 2);
      assertThat(TestSupport.metric(admin, "updraft_control_encoded_bytes_total")).as("nothing encoded for the second group").isEqualTo(first);
    } finally {
      TestSupport.await(cp.close());
      TestSupport.await(vertx.close());
    }
  }
}
