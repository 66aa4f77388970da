package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.http.RequestOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the warm-up asks, in which order: as devices, balancers and scrapers ask. */
class WarmupPickTest {
  private static RequestOptions variant(String uri) {
    return new RequestOptions().setHost("127.0.0.1").setPort(4000).setURI(uri);
  }

  private final List<RequestOptions> variants = List.of(variant("/a"), variant("/b"), variant("/c"));

  @Test
  void eachVariantIsAskedSeveralTimesInARowSoThatADevicesRepeatedHeadersAreSeen() {
    StringBuilder order = new StringBuilder();
    for (int n = 0; n < 14; n++) {
      order.append(Warmup.pick(variants, n).getURI()).append(' ');
    }
    assertThat(order.toString().trim()).isEqualTo("/a /a /a /a /b /b /b /b /c /c /c /c /a /a");
  }

  @Test
  void nowAndThenItAsksTheOpsRoutesOnTheSameServer() {
    int readyz = 0;
    int metrics = 0;
    for (int n = 0; n < 10 * Warmup.OPS_EVERY; n++) {
      RequestOptions o = Warmup.pick(variants, n);
      readyz += o.getURI().equals("/readyz") ? 1 : 0;
      metrics += o.getURI().equals("/metrics") ? 1 : 0;
      if (o.getURI().startsWith("/readyz") || o.getURI().startsWith("/metrics")) {
        assertThat(o.getPort()).isEqualTo(4000);
      }
    }
    assertThat(readyz).isEqualTo(8);
    assertThat(metrics).isEqualTo(2);
  }
}
