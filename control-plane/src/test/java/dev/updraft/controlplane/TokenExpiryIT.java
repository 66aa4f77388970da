package dev.updraft.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens expire, over the API on real Kafka with the control plane's clock moved by the test: an issued token works
 * until its {@code expiresAt} and is then refused with 401 {@code token-expired} saying when, the listing shows
 * each token's expiry, a token without one gets the 90-day default, and a control plane that replays the log after a
 * restart refuses the expired token too.
 */
@ExtendWith(RealInfrastructure.class)
class TokenExpiryIT {

  @Test
  void anExpiredTokenIsRefusedWith401SayingWhenAndTheListingShowsIt(Infra infra, @TempDir Path dir) throws Exception {
    Instant start = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    MutableClock clock = new MutableClock(start);
    Vertx vertx = Vertx.vertx();
    ControlPlane cp = TestSupport.start(vertx, TestSupport.config(infra, dir), new Hooks(clock, null, null));
    String shortSecret;
    String defaultSecret;
    try {
      Http admin = new Http("http://127.0.0.1:" + cp.port(), TestSupport.ADMIN);
      assertThat(admin.post("/v1/apps", Map.of("appId", "exp")).status()).isEqualTo(201);

      Http.Resp created = admin.post("/v1/apps/exp/tokens", Map.of("role", "read", "label", "short", "expiresIn", "30d"));
      assertThat(created.status()).isEqualTo(201);
      assertThat(Instant.parse(created.json().get("expiresAt").asText())).isEqualTo(start.plus(Duration.ofDays(30)));
      assertThat(created.json().get("expired").asBoolean()).isFalse();
      shortSecret = created.json().get("token").asText();
      Http.Resp byDefault = admin.post("/v1/apps/exp/tokens", Map.of("role", "read"));
      assertThat(Instant.parse(byDefault.json().get("expiresAt").asText())).isEqualTo(start.plus(Duration.ofDays(90)));
      defaultSecret = byDefault.json().get("token").asText();

      Http.Resp tooLong = admin.post("/v1/apps/exp/tokens", Map.of("role", "read", "expiresIn", "400d"));
      assertThat(tooLong.status()).isEqualTo(400);
      assertThat(tooLong.errorCode()).isEqualTo("invalid-expiry");
      assertThat(tooLong.errorMessage()).contains("365d");

      Http holder = admin.as(shortSecret);
      assertThat(holder.get("/v1/apps/exp").status()).isEqualTo(200);
      clock.advance(Duration.ofDays(30).minusMillis(1));
      assertThat(holder.get("/v1/apps/exp").status()).as("a millisecond before its expiry").isEqualTo(200);
      clock.advance(Duration.ofMillis(1));

      Http.Resp refused = holder.get("/v1/apps/exp");
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.errorCode()).isEqualTo("token-expired");
      assertThat(refused.errorMessage()).contains(created.json().get("tokenId").asText())
          .contains("expired at " + start.plus(Duration.ofDays(30)));
      assertThat(admin.as(defaultSecret).get("/v1/apps/exp").status()).isEqualTo(200);

      JsonNode items = admin.get("/v1/apps/exp/tokens").json().get("items");
      assertThat(items).hasSize(2);
      for (JsonNode t : items) {
        boolean isShort = "short".equals(t.path("label").asText());
        assertThat(t.get("expired").asBoolean()).as(t.toString()).isEqualTo(isShort);
        assertThat(Instant.parse(t.get("expiresAt").asText())).isEqualTo(start.plus(Duration.ofDays(isShort ? 30 : 90)));
      }
    } finally {
      TestSupport.await(cp.close());
    }

    ControlPlane again = TestSupport.start(vertx, TestSupport.config(infra, dir), new Hooks(clock, null, null));
    try {
      Http admin = new Http("http://127.0.0.1:" + again.port(), TestSupport.ADMIN);
      assertThat(admin.as(shortSecret).get("/v1/apps/exp").errorCode()).as("after a replay of the log").isEqualTo("token-expired");
      assertThat(admin.as(defaultSecret).get("/v1/apps/exp").status()).isEqualTo(200);
      clock.advance(Duration.ofDays(60));
      assertThat(admin.as(defaultSecret).get("/v1/apps/exp").errorCode()).as("at 90 days").isEqualTo("token-expired");
    } finally {
      TestSupport.await(again.close());
      TestSupport.await(vertx.close());
    }
  }
}
