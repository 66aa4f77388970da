package dev.updraft.controlplane.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.api.PublisherApi;
import dev.updraft.controlplane.storage.LocalAssetRoute;
import dev.updraft.controlplane.storage.LocalAssetStorage;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's files are served from the jar with the right content types and no token, while every
 * publisher API route still refuses a request without one. The router is the real publisher API's (its
 * routes answer 401 before they touch any dependency, so none is needed here).
 */
class ConsoleRoutesTest {
  /** The console's sources, as committed (surefire runs in the module's directory). */
  private static final Path SOURCES = Path.of("src/main/resources/console");

  private static final Map<String, String> EXPECTED_TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml");

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(10)).build();
  private static final ObjectMapper JSON = new ObjectMapper();

  static Vertx vertx;
  static HttpServer server;
  static Router router;
  static String base;

  @BeforeAll
  static void start(@TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    ControlPlaneConfig config =
        ControlPlaneConfig.from(Settings.of(Map.of("admin-token", "0123456789abcdef", "data-dir", dir.toString()), Map.of()));
    PublisherApi api =
        new PublisherApi(vertx, new PublisherApi.Deps(config, null, null, null, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), dir, null, null));
    router = api.router();
    LocalAssetRoute.mount(vertx, router, new LocalAssetStorage(dir, () -> "http://x"));
    ConsoleRoutes.load().mount(router);
    server =
        vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)).requestHandler(router).listen()
            .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private static HttpResponse<byte[]> send(String method, String path, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    headers.forEach(b::header);
    b.method(method, method.equals("GET") || method.equals("DELETE") || method.equals("HEAD") ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString("{}"));
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  private static HttpResponse<byte[]> get(String path) throws IOException, InterruptedException {
    return send("GET", path, Map.of());
  }

  private static List<String> sourceFiles() throws IOException {
    try (Stream<Path> s = Files.list(SOURCES)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void everyFileInTheConsoleFolderIsListedAndServed() throws Exception {
    assertThat(sourceFiles()).as("files in %s vs ConsoleRoutes.FILES", SOURCES).containsExactlyInAnyOrderElementsOf(ConsoleRoutes.FILES);
  }

  @Test
  void servesEachFileWithItsContentTypeAndExactBytesWithoutAToken() throws Exception {
    for (String name : sourceFiles()) {
      HttpResponse<byte[]> r = get("/console/" + name);
      String ext = name.substring(name.lastIndexOf('.') + 1);
      assertThat(r.statusCode()).as(name).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).as(name).hasValue(EXPECTED_TYPES.get(ext));
      assertThat(r.headers().firstValue("x-content-type-options")).as(name).hasValue("nosniff");
      assertThat(r.headers().firstValue("cache-control")).as(name).hasValue("no-cache");
      assertThat(r.body()).as(name).isEqualTo(Files.readAllBytes(SOURCES.resolve(name)));
    }
  }

  @Test
  void consoleSlashIsTheHtmlPage() throws Exception {
    HttpResponse<byte[]> r = get("/console/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(r.body()).isEqualTo(Files.readAllBytes(SOURCES.resolve("index.html")));
    String csp = r.headers().firstValue("content-security-policy").orElseThrow();
    assertThat(csp).contains("script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'").doesNotContain("unsafe-inline", "unsafe-eval", "http");
  }

  @Test
  void rootAndConsoleWithoutSlashRedirectToConsoleSlash() throws Exception {
    for (String path : List.of("/", "/console")) {
      HttpResponse<byte[]> r = get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(302);
      assertThat(r.headers().firstValue("location")).as(path).hasValue("/console/");
    }
  }

  @Test
  void matchingEtagAnswers304AndAnotherOneTheFile() throws Exception {
    HttpResponse<byte[]> first = get("/console/app.js");
    String etag = first.headers().firstValue("etag").orElseThrow();
    assertThat(etag).matches("\"[0-9a-f]{32}\"");
    HttpResponse<byte[]> again = send("GET", "/console/app.js", Map.of("If-None-Match", etag));
    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    HttpResponse<byte[]> other = send("GET", "/console/app.js", Map.of("If-None-Match", "\"0123\""));
    assertThat(other.statusCode()).isEqualTo(200);
    assertThat(get("/console/console.css").headers().firstValue("etag")).isPresent().isNotEqualTo(java.util.Optional.of(etag));
  }

  @Test
  void unknownFileIsAJson404AndPathsCannotLeaveTheConsole() throws Exception {
    for (String path : List.of("/console/nope.js", "/console/..%2Fv1%2Fapps", "/console/%2e%2e%2fpom.xml", "/console/pages/app.js")) {
      HttpResponse<byte[]> r = get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      if (r.headers().firstValue("content-type").orElse("").startsWith("application/json")) {
        JsonNode n = JSON.readTree(r.body());
        assertThat(n.path("error").path("code").asText()).as(path).isEqualTo("not-found");
      }
    }
  }

  @Test
  void everyApiRouteStillNeedsAToken() throws Exception {
    List<String> checked = new ArrayList<>();
    for (String route : PublisherApi.describe(router)) {
      String method = route.substring(0, route.indexOf(' '));
      String path = route.substring(route.indexOf(' ') + 1);
      if (!path.startsWith("/v1/") || path.equals("/v1/openapi.yaml")) {
        continue;
      }
      if (path.equals("/v1/session") || path.startsWith("/v1/auth/oidc/")) {
        continue; // signing in needs no token; these answer no data without a session (below)
      }
      String concrete =
          path.replace("{app}", "demo")
              .replace("{groupId}", "7d2f5c3e-1111-4222-8333-944455556666")
              .replace("{sha256}", "a".repeat(64))
              .replaceAll("\\{[A-Za-z]+}", "x");
      HttpResponse<byte[]> r = send(method, concrete, Map.of("Content-Type", "application/json"));
      assertThat(r.statusCode()).as(route).isEqualTo(401);
      assertThat(JSON.readTree(r.body()).path("error").path("code").asText()).as(route).isEqualTo("unauthorized");
      checked.add(route);
    }
    // the console's own reads and writes are among them
    assertThat(checked)
        .contains(
            "GET /v1/apps", "POST /v1/apps", "GET /v1/apps/{app}/updates", "PATCH /v1/apps/{app}/updates/{groupId}/rollout",
            "PUT /v1/apps/{app}/channels/{channel}", "GET /v1/apps/{app}/audit", "POST /v1/apps/{app}/rollbacks");
  }

  @Test
  void theSignInRoutesAnswerNoDataWithoutASessionAndSayWhenProviderSignInIsOff() throws Exception {
    HttpResponse<byte[]> session = send("GET", "/v1/session", Map.of());
    assertThat(session.statusCode()).isEqualTo(200);
    assertThat(new String(session.body(), StandardCharsets.UTF_8)).isEqualTo("{\"signedIn\":false,\"oidcEnabled\":false}");
    HttpResponse<byte[]> out = send("DELETE", "/v1/session", Map.of());
    assertThat(new String(out.body(), StandardCharsets.UTF_8)).isEqualTo("{\"signedOut\":false}");
    for (String path : List.of("/v1/auth/oidc/login", "/v1/auth/oidc/callback?code=a&state=b")) {
      HttpResponse<byte[]> r = send("GET", path, Map.of());
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(JSON.readTree(r.body()).path("error").path("code").asText()).as(path).isEqualTo("oidc-not-configured");
    }
  }

  @Test
  void everyModuleAndAssetThePagesLoadIsAServedFileOfThisOrigin() throws Exception {
    Set<String> referenced = new TreeSet<>();
    Pattern imports = Pattern.compile("(?m)^import\\s+(?:[^;']*?\\sfrom\\s+)?'([^']+)';");
    for (String name : sourceFiles()) {
      String text = Files.readString(SOURCES.resolve(name), StandardCharsets.UTF_8);
      if (name.endsWith(".js")) {
        Matcher m = imports.matcher(text);
        while (m.find()) {
          assertThat(m.group(1)).as("import in %s", name).startsWith("./");
          referenced.add(m.group(1).substring(2));
        }
        // the CSP forbids inline styles and code from strings; keep the sources clear of both
        assertThat(text).as(name).doesNotContain("innerHTML", "eval(", "new Function", "setAttribute('style'", ".style.");
      }
    }
    String html = Files.readString(SOURCES.resolve("index.html"), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("(?:src|href)=\"([^\"#][^\"]*)\"").matcher(html);
    while (m.find()) {
      if (!m.group(1).startsWith("../v1/")) {
        referenced.add(m.group(1));
      }
    }
    assertThat(html.toLowerCase(Locale.ROOT)).doesNotContain("<script>", " style=", "onclick=", "http://", "https://");
    assertThat(referenced).isNotEmpty().isSubsetOf(ConsoleRoutes.FILES);
    assertThat(referenced).contains("app.js", "console.css", "api.js", "charts.js");
  }
}
