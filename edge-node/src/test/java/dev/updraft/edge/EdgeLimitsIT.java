package dev.updraft.edge;

import dev.updraft.testing.RawExchange;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The edge's request bounds on a real edge: a head above {@code --max-header-size} (431), a request line
 * above 4 KiB (414) and a body above 64 KiB on the manifest route (413, devices send none) each get a 4xx
 * JSON error, and the edge keeps answering.
 */
@ExtendWith(RealInfrastructure.class)
class EdgeLimitsIT {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void oversizedHeadsLinesAndBodiesGetA4xxJsonErrorAndTheEdgeKeepsAnswering(Infra infra) throws Exception {
    Vertx vertx = Edges.vertx();
    try (TestLog log = new TestLog(infra.kafkaBootstrap(), infra.topicPrefix())) {
      EdgeNode edge = Edges.startReady(vertx, log, "limits-edge", "checkins", "false", "max-header-size", "4096");
      String device = "Host: x\r\nexpo-platform: ios\r\nexpo-runtime-version: 1\r\nexpo-protocol-version: 1\r\n";
      Map<String, String> cases = new LinkedHashMap<>();
      cases.put("header of 8 KiB", "GET /apps/demo/manifest HTTP/1.1\r\n" + device + "X-Big: " + "a".repeat(8192) + "\r\n\r\n");
      cases.put("100 headers of 60 bytes", "GET /apps/demo/manifest HTTP/1.1\r\n" + device + ("X-Many: " + "b".repeat(50) + "\r\n").repeat(100) + "\r\n");
      cases.put("URL of 20 KiB", "GET /apps/demo/manifest?x=" + "c".repeat(20 * 1024) + " HTTP/1.1\r\n" + device + "\r\n");
      cases.put("app id of 10 KiB", "GET /apps/" + "d".repeat(10 * 1024) + "/manifest HTTP/1.1\r\n" + device + "\r\n");
      cases.put("body declared 100 MB", "GET /apps/demo/manifest HTTP/1.1\r\n" + device + "Content-Length: 100000000\r\n\r\n" + "e".repeat(1000));
      cases.put("body declared 64 KiB + 1", "GET /apps/demo/manifest HTTP/1.1\r\n" + device + "Content-Length: 65537\r\n\r\n" + "f".repeat(1000));
      Map<String, Integer> expected =
          Map.of("header of 8 KiB", 431, "100 headers of 60 bytes", 431, "URL of 20 KiB", 414, "app id of 10 KiB", 414, "body declared 100 MB", 413, "body declared 64 KiB + 1", 413);
      int fiveHundreds = 0;
      for (Map.Entry<String, String> c : cases.entrySet()) {
        String answer = rawAnswer(edge.port(), c.getValue().getBytes(StandardCharsets.US_ASCII));
        int status = answer.startsWith("HTTP/1.") ? Integer.parseInt(answer.substring(9, 12)) : -1;
        fiveHundreds += status >= 500 ? 1 : 0;
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        System.out.println("edge limits: " + c.getKey() + " -> HTTP " + status + " " + body);
        assertThat(status).as(c.getKey() + ": " + answer.substring(0, Math.min(300, answer.length()))).isEqualTo(expected.get(c.getKey()));
        assertThat(answer.toLowerCase(java.util.Locale.ROOT)).as(c.getKey()).contains("content-type: application/json");
        JsonNode err = JSON.readTree(body);
        assertThat(err.path("error").path("code").asText()).as(c.getKey()).isNotEmpty();
        assertThat(err.path("error").path("message").asText()).as(c.getKey()).isNotEmpty();
        String health = rawAnswer(edge.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(health).as("edge still answering after " + c.getKey()).startsWith("HTTP/1.1 200");
      }
      // a request with an empty or small body is still answered (404: no such app in this log)
      String empty = rawAnswer(edge.port(), ("GET /apps/demo/manifest HTTP/1.1\r\n" + device + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      assertThat(empty).startsWith("HTTP/1.1 404");
      String small = rawAnswer(edge.port(), ("GET /apps/demo/manifest HTTP/1.1\r\n" + device + "Content-Length: 5\r\n\r\nhello").getBytes(StandardCharsets.US_ASCII));
      assertThat(small).startsWith("HTTP/1.1 404");
      System.out.println("edge limits: " + cases.size() + " oversized requests; 5xx seen: " + fiveHundreds);
      assertThat(fiveHundreds).isZero();
      Edges.await(edge.close());
    } finally {
      Edges.await(vertx.close());
    }
  }

  static String rawAnswer(int port, byte[] request) throws IOException {
    return RawExchange.answer(port, request);
  }
}
