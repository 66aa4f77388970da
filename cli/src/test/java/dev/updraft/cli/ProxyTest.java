package dev.updraft.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI reaches the control plane through the proxy the environment names, as curl does (a CI runner behind
 * a corporate proxy): Java's HTTP client reads none of HTTPS_PROXY, HTTP_PROXY and NO_PROXY by itself.
 */
class ProxyTest {
  private HttpServer server;
  private ServerSocket proxy;
  private final List<String> proxied = new CopyOnWriteArrayList<>();
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/apps", x -> {
      byte[] b = "{\"items\":[{\"appId\":\"behind-proxy\",\"displayName\":\"Behind\",\"signing\":null}]}".getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().add("content-type", "application/json");
      x.sendResponseHeaders(200, b.length);
      x.getResponseBody().write(b);
      x.close();
    });
    server.start();
    proxy = new ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"));
    Thread t = new Thread(this::serveProxy, "test-proxy");
    t.setDaemon(true);
    t.start();
  }

  @AfterEach
  void stop() throws IOException {
    server.stop(0);
    proxy.close();
  }

  /**
   * A forward proxy for http:// targets: reads the first request line (absolute-form, which names the target),
   * records it, then pipes the connection to that target both ways (the server takes absolute-form too).
   */
  private void serveProxy() {
    while (!proxy.isClosed()) {
      try {
        Socket client = proxy.accept();
        InputStream in = client.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
          line.write(c);
        }
        String requestLine = line.toString(StandardCharsets.US_ASCII).trim();
        proxied.add(requestLine);
        URI target = URI.create(requestLine.split(" ")[1]);
        Socket upstream = new Socket(target.getHost(), target.getPort());
        upstream.getOutputStream().write((requestLine + "\r\n").getBytes(StandardCharsets.US_ASCII));
        pipe(in, upstream.getOutputStream());
        pipe(upstream.getInputStream(), client.getOutputStream());
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private static void pipe(InputStream from, OutputStream to) {
    Thread t = new Thread(() -> {
      try {
        from.transferTo(to);
        to.close();
      } catch (IOException e) {
        // the other side closed
      }
    });
    t.setDaemon(true);
    t.start();
  }

  private int run(Map<String, String> env, String... args) {
    return Cli.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), ms -> {}, false);
  }

  private String serverUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void httpProxyCarriesTheRequestsToAnHttpServer() {
    int status = run(Map.of("UPDRAFT_SERVER", serverUrl(), "UPDRAFT_TOKEN", "t", "HTTP_PROXY", "http://127.0.0.1:" + proxy.getLocalPort()),
        "apps", "list");

    assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("behind-proxy");
    assertThat(proxied).containsExactly("GET " + serverUrl() + "/v1/apps HTTP/1.1");
  }

  @Test
  void noProxyNamingTheServersHostGoesDirect() {
    int status = run(Map.of("UPDRAFT_SERVER", serverUrl(), "UPDRAFT_TOKEN", "t", "HTTP_PROXY", "127.0.0.1:" + proxy.getLocalPort(),
        "NO_PROXY", "localhost, 127.0.0.1"), "apps", "list");

    assertThat(status).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("behind-proxy");
    assertThat(proxied).isEmpty();
  }

  @Test
  void aProxyThatIsNotThereIsNamedInTheFailure() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    int status = run(Map.of("UPDRAFT_SERVER", serverUrl(), "UPDRAFT_TOKEN", "t", "http_proxy", "http://127.0.0.1:" + closed), "apps", "list");

    assertThat(status).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("through the proxy 127.0.0.1:" + closed + " (http_proxy)");
  }

  @Test
  void theEnvironmentIsReadAsCurlReadsIt() throws CliException {
    URI https = URI.create("https://updraft.example.com");
    assertThat(Proxies.of(Map.of("HTTP_PROXY", "http://p:3128"), https)).as("HTTP_PROXY is for http:// servers").isNull();
    Proxies p = Proxies.of(Map.of("HTTPS_PROXY", "http://ci:s3cret@proxy.corp:3128", "https_proxy", "proxy.lower:8080"), https);
    assertThat(p.address().getHostString() + ":" + p.address().getPort() + " " + p.from()).isEqualTo("proxy.lower:8080 https_proxy");
    Proxies withUser = Proxies.of(Map.of("HTTPS_PROXY", "http://ci:s3cret@proxy.corp:3128"), https);
    assertThat(withUser.user() + "/" + withUser.password()).isEqualTo("ci/s3cret");
    assertThat(withUser.describe()).isEqualTo("through the proxy proxy.corp:3128 (HTTPS_PROXY)").doesNotContain("s3cret");
    assertThat(Proxies.of(Map.of("HTTPS_PROXY", "proxy.corp"), https).address().getPort()).as("no port: 80").isEqualTo(80);
    assertThat(Proxies.of(Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", ".example.com"), https)).isNull();
    assertThat(Proxies.of(Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", "example.com:443"), https)).isNull();
    assertThat(Proxies.of(Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", "*"), https)).isNull();
    assertThat(Proxies.of(Map.of("HTTPS_PROXY", "http://p:3128", "NO_PROXY", "ample.com,other.example.org"), https)).isNotNull();
    assertThatThrownBy(() -> Proxies.of(Map.of("HTTPS_PROXY", "socks5://p:1080"), https)).isInstanceOf(CliException.class)
        .hasMessageContaining("only an http:// proxy");
  }
}
