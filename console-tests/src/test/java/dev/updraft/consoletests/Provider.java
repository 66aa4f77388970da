package dev.updraft.consoletests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.OAuth2Config;

/**
 * A real OIDC provider for the console's sign-in (mock-oauth2-server on loopback, with its interactive login page:
 * a user name and a claims JSON typed into a form), and the flags that point a control plane at it.
 */
final class Provider implements AutoCloseable {
  static final String CLIENT = "updraft-console";
  static final String PUBLISHERS = "bare-publishers";

  private final MockOAuth2Server server;

  private Provider(MockOAuth2Server server) {
    this.server = server;
  }

  static Provider start() throws IOException {
    MockOAuth2Server s = new MockOAuth2Server(OAuth2Config.Companion.fromJson("{\"interactiveLogin\":true}"));
    s.start(InetAddress.getByName("127.0.0.1"), 0);
    return new Provider(s);
  }

  /** The --oidc-* flags for a control plane at {@code base}: group {@link #PUBLISHERS} may publish on {@code app}. */
  Map<String, String> flags(String base, String app, Path dir) throws IOException {
    Path roles = Files.writeString(dir.resolve("oidc-roles"), "# the console browser test\ngroup:" + PUBLISHERS + " " + app + " publish\n");
    return Map.of("oidc-issuer", server.issuerUrl("corp").toString(), "oidc-client-id", CLIENT, "oidc-roles", roles.toString(),
        "oidc-redirect-base-url", base);
  }

  /** A free loopback port for a control plane whose URL the provider must know before it starts. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return s.getLocalPort();
    }
  }

  /** An API request carrying only {@code cookie} (as a stolen or kept copy would). */
  static HttpResponse<String> withCookie(String url, String cookie) throws IOException, InterruptedException {
    HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).header("cookie", cookie).GET().build();
    return HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    server.shutdown();
  }
}
