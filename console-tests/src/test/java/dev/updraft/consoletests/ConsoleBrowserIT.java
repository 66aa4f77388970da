package dev.updraft.consoletests;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.updraft.common.Settings;
import dev.updraft.controlplane.ControlPlane;
import dev.updraft.controlplane.config.ControlPlaneConfig;
import dev.updraft.controlplane.insights.InsightsExtension;
import dev.updraft.edge.EdgeConfig;
import dev.updraft.edge.EdgeNode;
import dev.updraft.ingester.IngesterConfig;
import dev.updraft.ingester.TelemetryIngester;
import dev.updraft.testing.Fixtures;
import dev.updraft.testing.Infra;
import dev.updraft.testing.RealInfrastructure;
import dev.updraft.testing.TestCertificates;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console end to end: a real control plane on real Kafka serves {@code /console/}, Debian's
 * headless Chromium (driven by Selenium through Debian's chromedriver; Selenium Manager never runs)
 * signs in, creates an app, sees updates published through the API, steers a rollout, maps a channel,
 * reads adoption charts and a device lookup, and finds its changes in the audit log. Each main page is
 * checked for labelled controls and one heading, and saved to {@code target/screenshots/}.
 *
 * <p>The insights are real: a real edge answers devices driven through it ({@link Fleet}, requests with
 * the headers clients send), its check-ins go through Kafka and the real ingester into PostgreSQL, and
 * the control plane's insights routes read them there. The numbers the pages must show are counted from
 * what the devices sent. The "not available" path is seen on a second control plane without insights.
 *
 * <p>Outside CI, skipped with the reason where {@code /usr/bin/chromium} or {@code /usr/bin/chromedriver} is
 * missing (a condition rather than an assumption in {@code @BeforeAll}, so Kafka is not started for
 * nothing); {@code .ci/install-browser.sh} installs both.
 */
@EnabledIf(value = "browserInstalled", disabledReason = "needs Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver): run .ci/install-browser.sh")
@ExtendWith(RealInfrastructure.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserIT {
  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
  private static final String ADMIN = "console-admin-token-0123456789";
  private static final String APP = "console-demo";
  private static final String BARE_APP = "bare-app";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  /** Devices of a build without a channel header, refused by the edge and counted by the insights. */
  static final int DEAF_DEVICES = 3;

  static Vertx vertx;
  static ControlPlane cp;
  static ControlPlane bareCp;
  static EdgeNode edge;
  static TelemetryIngester ingester;
  static ApiClient api;
  static String base;
  /** A control plane without the insights routes (its own topics), for the console's "not available" path. */
  static String bareBase;
  static String edgeUrl;
  static String postgresUrl;
  static ChromeDriverService service;
  /** The OIDC provider the bare control plane signs people in with. */
  static Provider provider;
  static final String OTHER_APP = "other-app";
  static WebDriver driver;
  static WebDriverWait wait;

  /**
   * Whether to run: where the browser is installed, and always in CI ({@code CI} set), so that a CI
   * machine without Chromium fails this test instead of skipping it.
   */
  static boolean browserInstalled() {
    return System.getenv("CI") != null || (new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute());
  }

  @BeforeAll
  static void start(Infra infra, @TempDir Path dir) throws Exception {
    vertx = Vertx.vertx();
    postgresUrl = "postgresql://" + infra.pgUser() + (infra.pgPassword().isEmpty() ? "" : ":" + infra.pgPassword())
        + "@" + infra.pgHost() + ":" + infra.pgPort() + "/" + infra.database();
    // the wiring of `updraft control-plane`: the insights extension over the ingester's database
    Map<String, String> flags = controlFlags(infra.kafkaBootstrap(), infra.topicPrefix(), dir.resolve("data"));
    flags.put("postgres-url", postgresUrl);
    Settings settings = Settings.of(flags, Map.of());
    cp = await(ControlPlane.start(vertx, ControlPlaneConfig.from(settings, InsightsExtension.FLAGS), List.of(InsightsExtension.from(settings))));
    base = "http://127.0.0.1:" + cp.port();
    api = new ApiClient(base, ADMIN);
    api.ok(api.post("/v1/apps", Map.of("appId", BARE_APP)), "create " + BARE_APP);
    Map<String, String> ed = new HashMap<>();
    ed.put("kafka-bootstrap", infra.kafkaBootstrap());
    ed.put("topic-prefix", infra.topicPrefix());
    ed.put("edge-port", "0");
    ed.put("bind", "127.0.0.1");
    ed.put("edge-id", "console-edge");
    ed.put("warmup-requests", "0"); // tests measure no speed; WarmupIT covers the warm-up
    edge = await(EdgeNode.start(vertx, EdgeConfig.from(Settings.of(ed, Map.of()))));
    edgeUrl = "http://127.0.0.1:" + edge.port();
    Map<String, String> in = new HashMap<>();
    in.put("kafka-bootstrap", infra.kafkaBootstrap());
    in.put("topic-prefix", infra.topicPrefix());
    in.put("postgres-url", postgresUrl);
    in.put("consumer-group", infra.topicPrefix() + "ingester");
    in.put("metrics-port", "0");
    ingester = await(TelemetryIngester.start(vertx, IngesterConfig.from(Settings.of(in, Map.of()))));
    until("the edge is ready", () -> edge.ready());

    // the bare control plane also signs people in with a real OIDC provider (its URL must be known before it starts)
    provider = Provider.start();
    int barePort = Provider.freePort();
    Map<String, String> bare = controlFlags(infra.kafkaBootstrap(), infra.topicPrefix() + "bare.", dir.resolve("bare"));
    bare.put("control-port", Integer.toString(barePort));
    bare.putAll(provider.flags("http://127.0.0.1:" + barePort, BARE_APP, dir));
    bareCp = await(ControlPlane.start(vertx, ControlPlaneConfig.from(Settings.of(bare, Map.of()))));
    bareBase = "http://127.0.0.1:" + bareCp.port();
    new ApiClient(bareBase, ADMIN).ok(new ApiClient(bareBase, ADMIN).post("/v1/apps", Map.of("appId", OTHER_APP)), "create " + OTHER_APP);
    new ApiClient(bareBase, ADMIN).ok(new ApiClient(bareBase, ADMIN).post("/v1/apps", Map.of("appId", BARE_APP)), "create " + BARE_APP + " without insights");

    Files.createDirectories(SCREENSHOTS);
    // Debian's driver and browser only: with both paths given, Selenium Manager is never asked to find or fetch one
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1280,900",
        "--lang=en-US", "--user-data-dir=" + dir.resolve("chromium-profile"),
        // loopback only: a name (the provider's login page links a web font) fails at once instead of waiting for DNS
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort().build();
    driver = new ChromeDriver(service, options);
    // polls every 50 ms (Selenium's default is 500 ms, about a quarter second lost on each of some 80 waits)
    wait = new WebDriverWait(driver, WAIT, Duration.ofMillis(50));
    wait.ignoring(StaleElementReferenceException.class); // a page re-rendered between finding and reading
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (driver != null) {
        driver.quit();
      }
      if (service != null) {
        service.stop();
      }
    } finally {
      if (ingester != null) {
        await(ingester.close());
      }
      if (edge != null) {
        await(edge.close());
      }
      if (bareCp != null) {
        await(bareCp.close());
      }
      if (provider != null) {
        provider.close();
      }
      if (cp != null) {
        await(cp.close());
      }
      if (vertx != null) {
        await(vertx.close());
      }
    }
  }

  private static Map<String, String> controlFlags(String kafka, String prefix, Path dataDir) {
    Map<String, String> flags = new HashMap<>();
    flags.put("kafka-bootstrap", kafka);
    flags.put("topic-prefix", prefix);
    flags.put("control-port", "0");
    flags.put("bind", "127.0.0.1");
    flags.put("admin-token", ADMIN);
    flags.put("command-warmup", "0s"); // tests measure no speed; CommandWarmupIT covers the warm-up
    flags.put("master-key", dev.updraft.testing.Fixtures.masterKey()); // a control plane stores keys only sealed
    flags.put("data-dir", dataDir.toString());
    flags.put("asset-encoding", "fast"); // low levels: the console shows no compression ratio
    return flags;
  }

  @Test
  @Order(1)
  void wrongTokenShowsTheServersMessageAndIsNotKept() throws Exception {
    driver.get(base + "/");
    wait.until(ExpectedConditions.urlToBe(base + "/console/#/signin"));
    WebElement token = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
    assertThat(driver.switchTo().activeElement()).as("the page puts focus on its heading").isEqualTo(driver.findElement(By.tagName("h1")));

    token.sendKeys("not-the-token-at-all", Keys.ENTER);
    String expected = api.withToken("not-the-token-at-all").get("/v1/apps").errorMessage();
    assertThat(expected).isNotBlank();
    WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector("#signin-error [role=alert]")));
    assertThat(error.getText()).contains(expected).contains("unauthorized");
    assertThat(sessionToken()).as("a refused token is not kept").isNull();
    assertThat(driver.getCurrentUrl()).endsWith("#/signin");
    page("01-sign-in");
  }

  @Test
  @Order(2)
  void signInPublishSteerTheRolloutAndSeeItAudited() throws Exception {
    // sign in with the keyboard: type the token, Enter
    driver.get(base + "/console/");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(ADMIN, Keys.ENTER);
    waitForHeading("Apps");
    assertThat(sessionToken()).isEqualTo(ADMIN);
    assertThat(driver.findElement(By.id("status")).getText()).contains("Signed in");

    // create the app in the page
    driver.findElement(By.id("new-app-id")).sendKeys(APP);
    driver.findElement(By.id("new-app-name")).sendKeys("Console demo");
    driver.findElement(By.id("create-app-submit")).click();
    waitForHeading("Channels of " + APP);
    assertThat(driver.findElement(By.id("status")).getText()).contains("Created app " + APP);
    assertThat(api.ok(api.get("/v1/apps/" + APP), "app").path("displayName").asText()).isEqualTo("Console demo");

    // publish two updates through the API: the second as a 10% rollout over the first
    JsonNode first = api.publish(APP, Fixtures.update1(), "production", "1.0.0", Map.of("message", "First release", "gitCommitHash", "a1b2c3d"));
    JsonNode second =
        api.publish(APP, Fixtures.update2(), "production", "1.0.0", Map.of("message", "Faster start-up", "gitCommitHash", "e4f5a6b", "rolloutPercentage", 10));
    String g1 = first.get("groupId").asText();
    String g2 = second.get("groupId").asText();
    String g2ios = Fleet.updateId(second, "ios");

    // devices check in through the edge; their check-ins reach PostgreSQL through Kafka and the ingester
    until("the edge has every event", () -> metric(edgeUrl, "updraft_edge_events_applied_total") == metric(base, "updraft_control_events_appended_total"));
    Fleet fleet = new Fleet(edgeUrl, APP);
    Fleet.Expected fx = fleet.drive(first, second);
    fleet.deafBuild(DEAF_DEVICES);
    until("the insights hold every check-in of the fleet", () -> {
      JsonNode c = api.get("/v1/apps/" + APP + "/insights/channels/" + Fleet.CHANNEL).json();
      return c != null && c.path("devices").asInt() == fx.devices() && c.path("launches7d").asInt() == fleet.sent();
    });
    until("the insights count the build that sends no channel", () -> {
      JsonNode r = api.get("/v1/apps/" + APP + "/insights/refusals").json();
      return r != null && r.toString().contains("\"devices\":" + DEAF_DEVICES);
    });

    // channel: map production to branch production with 20% on beta, then raise the share on its page
    driver.findElement(By.id("map-channel")).sendKeys("production");
    driver.findElement(By.id("map-branch")).sendKeys("production");
    driver.findElement(By.id("map-rollout-branch")).sendKeys("beta");
    driver.findElement(By.id("map-percentage")).sendKeys("20");
    driver.findElement(By.id("map-channel-form-submit")).click();
    waitForHeading("Channel production");
    JsonNode mapped = channel("production");
    assertThat(mapped.path("branch").asText()).isEqualTo("production");
    assertThat(mapped.path("rollout").path("branch").asText()).isEqualTo("beta");
    assertThat(mapped.path("rollout").path("percentage").asInt()).isEqualTo(20);
    String bucketing = mapped.path("rollout").path("rolloutId").asText();
    WebElement share = driver.findElement(By.id("map-percentage"));
    assertThat(share.getAttribute("value")).isEqualTo("20");
    share.clear();
    share.sendKeys("35");
    driver.findElement(By.id("map-channel-form-submit")).click();
    waitForText(By.id("channel-mapping"), "35% of devices");
    assertThat(channel("production").path("rollout").path("percentage").asInt()).isEqualTo(35);
    assertThat(channel("production").path("rollout").path("rolloutId").asText()).as("same second branch keeps the bucketing").isEqualTo(bucketing);
    // adoption on the channel, as the fleet's devices reported it (13 of 25 over the air = 52%, ...)
    assertThat(chartSummary("chart-channel-source")).contains(
        "over-the-air update: " + fx.ota() + " (" + percent(100.0 * fx.ota() / fx.devices()) + ")",
        "embedded bundle: " + fx.embedded() + " (" + percent(100.0 * fx.embedded() / fx.devices()) + ")",
        "unknown: " + fx.unknown() + " (" + percent(100.0 * fx.unknown() / fx.devices()) + ")");
    assertThat(chartSummary("chart-channel-updates")).contains(
        "ios " + g2ios.substring(0, 8) + ": " + percent(100.0 * fx.onNew()[0] / fx.devices()) + " (" + fx.onNew()[0] + " devices)",
        "ios " + Fleet.EMBEDDED_ID[0].substring(0, 8) + ": " + percent(100.0 * fx.onEmbedded()[0] / fx.devices()) + " (" + fx.onEmbedded()[0] + " devices)");
    page("04-channel");

    driver.findElement(By.linkText("Channels")).click();
    waitForHeading("Channels of " + APP);
    assertThat(driver.findElement(By.id("channels-table")).getText()).contains("production", "beta", "35%");
    // refused requests (the deaf build's devices, through the edge, Kafka and the ingester) and the default channel
    assertThat(driver.findElement(By.id("refusals-table")).getText()).contains(
        DEAF_DEVICES + " devices on runtime 1.0.0 (embedded update " + Fleet.EMBEDDED_ID[0] + ") send no channel", "missing-channel");
    assertThat(driver.findElement(By.id("default-channel-text")).getText()).contains("refused");
    page("03-channels");

    // branches: one row for production / 1.0.0 with two groups
    driver.findElement(By.linkText("Branches and updates")).click();
    waitForHeading("Branches of " + APP);
    assertThat(driver.findElement(By.id("branches-table")).getText()).contains("production", "1.0.0", "2", "in progress");
    page("05-branches");

    // the branch page shows both groups, newest first, with what the publisher gave
    driver.findElement(By.linkText("production")).click();
    waitForHeading("Branch production");
    List<WebElement> cards = driver.findElements(By.cssSelector("#groups article.card"));
    assertThat(cards).hasSize(2);
    assertThat(cards.get(0).getAttribute("data-group-id")).isEqualTo(g2);
    assertThat(cards.get(1).getAttribute("data-group-id")).isEqualTo(g1);
    assertThat(cards.get(0).getText()).contains("Faster start-up", "e4f5a6b", "1.0.0", "android", "ios", "admin", "newest", "rollout active · 10%");
    assertThat(cards.get(1).getText()).contains("First release", "a1b2c3d", "1.0.0", "android", "ios", "admin");
    assertThat(driver.findElement(By.id("rollout-" + g2 + "-percentage")).getText()).isEqualTo("10%");

    // change the rollout percentage in the page
    WebElement pct = driver.findElement(By.id("pct-" + g2));
    pct.clear();
    pct.sendKeys("50");
    driver.findElement(By.id("set-pct-" + g2 + "-submit")).click();
    waitForText(By.id("status"), "set to 50%");
    waitForText(By.id("rollout-" + g2 + "-percentage"), "50%");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/updates/" + g2), "group").path("rollout").path("percentage").asInt()).isEqualTo(50);

    // the automatic-revert guard: 2.5% of at least 50 devices within 30 minutes
    driver.findElement(By.xpath("//section[@id='rollout-" + g2 + "']//summary[contains(., 'automatic-revert guard')]")).click();
    fill(By.id("guard-rate-" + g2), "2.5");
    fill(By.id("guard-min-" + g2), "50");
    fill(By.id("guard-window-" + g2), "30");
    driver.findElement(By.id("guard-" + g2 + "-submit")).click();
    waitForText(By.id("rollout-" + g2 + "-guard"), "more than 2.5% of at least 50 devices report it failed within 30 minutes");
    JsonNode guard = api.ok(api.get("/v1/apps/" + APP + "/updates/" + g2), "group").path("rollout").path("guard");
    assertThat(guard.path("maxFailureRatePercent").asDouble()).isEqualTo(2.5);
    assertThat(guard.path("minDevices").asInt()).isEqualTo(50);
    assertThat(guard.path("windowSeconds").asInt()).isEqualTo(1800);

    // a refused action shows the server's message: republishing during a rollout is 409 rollout-in-progress
    ApiClient.Resp refused = api.post("/v1/apps/" + APP + "/rollbacks", Map.of("branch", "production", "runtimeVersion", "1.0.0", "toGroupId", g1));
    assertThat(refused.status()).isEqualTo(409);
    driver.findElement(By.xpath("//article[@data-group-id='" + g1 + "']//summary[contains(., 'Roll back to this update')]")).click();
    driver.findElement(By.id("republish-" + g1 + "-submit")).click();
    waitForText(By.id("republish-" + g1 + "-error"), refused.errorMessage());
    assertThat(driver.findElement(By.id("republish-" + g1 + "-error")).getText()).contains("rollout-in-progress");
    page("06-branch");

    // the update page: everything about the group and its adoption charts (the fleet's numbers)
    driver.findElement(By.linkText("Faster start-up")).click();
    waitForHeading("Faster start-up");
    assertThat(chartSummary("chart-devices")).contains(
        "ios: " + fx.devicesNow()[0] + " of " + fx.received()[0] + " received",
        "android: " + fx.devicesNow()[1] + " of " + fx.received()[1] + " received",
        "all platforms: " + fx.total(fx.devicesNow()) + " of " + fx.total(fx.received()) + " received");
    // every device that reported the update failed had been served it: the rate is failed among received
    assertThat(chartSummary("chart-failures")).contains(
        "ios: " + percent(100.0 * fx.failed()[0] / fx.received()[0]) + " (" + fx.failed()[0] + " failed)",
        "android: " + percent(100.0 * fx.failed()[1] / fx.received()[1]) + " (" + fx.failed()[1] + " failed)",
        "all platforms: " + percent(100.0 * fx.total(fx.failed()) / fx.total(fx.received())) + " (" + fx.total(fx.failed()) + " failed)",
        "guard 2.5%");
    assertThat(chartSummary("chart-launches")).contains("ios: last 24 h " + fx.launches()[0] + ", last 7 days " + fx.launches()[0]);
    for (int p = 0; p < 2; p++) {
      // devices now, launches 24 h and 7 days, failure reports 24 h and 7 days, received, failed, rate
      assertThat(insightsRow(Fleet.PLATFORMS[p])).as("the %s row of the numbers table", Fleet.PLATFORMS[p]).containsExactly(
          Integer.toString(fx.devicesNow()[p]), Integer.toString(fx.launches()[p]), Integer.toString(fx.launches()[p]),
          Integer.toString(fx.failureReports()[p]), Integer.toString(fx.failureReports()[p]), Integer.toString(fx.received()[p]),
          Integer.toString(fx.failed()[p]), percent(100.0 * fx.failed()[p] / fx.received()[p]));
    }
    // the download funnel: devices served it and that reported it failed are the fleet's planned ones
    for (int p = 0; p < 2; p++) {
      List<String> cells = new ArrayList<>();
      for (WebElement td : driver.findElements(By.cssSelector("#funnel-table tr[data-platform='" + Fleet.PLATFORMS[p] + "'] td"))) {
        cells.add(td.getText());
      }
      assertThat(cells).as("the %s row of the funnel table: served, fetched (full, patch, patch then full), launched, failed, erroring",
          Fleet.PLATFORMS[p]).hasSize(8);
      assertThat(cells.get(0)).as("served").isEqualTo(Integer.toString(fx.received()[p]));
      assertThat(cells.get(6)).as("failed").isEqualTo(Integer.toString(fx.failed()[p]));
      assertThat(cells.get(7)).as("erroring: the fleet reports no JavaScript error").isEqualTo("0");
    }
    // over the last 7 days, hour by hour: adoption, launches, and the failure rate with the guard's line (the fleet
    // checked in within the last minutes, so every number sits in the newest hour or two; the ends are exact)
    for (int p = 0; p < 2; p++) {
      String name = Fleet.PLATFORMS[p];
      assertThat(chartSummary("chart-adoption")).contains(name + ": " + fx.received()[p] + " at the end, at most " + fx.received()[p]);
      assertThat(chartSummary("chart-launches-hourly")).contains(name + ": " + fx.launches()[p] + " in all, at most ");
      assertThat(chartSummary("chart-failure-rate-hourly")).contains(name + ": " + percent(100.0 * fx.failed()[p] / fx.received()[p]) + " at the end");
    }
    assertThat(chartSummary("chart-failure-rate-hourly")).contains("guard 2.5%");
    WebElement iosAdoption = driver.findElement(By.cssSelector("#chart-adoption path[data-series='ios']"));
    String[] ios = iosAdoption.getAttribute("data-values").split(",", -1);
    assertThat(ios).as("one point per hour over 7 days").hasSize(168);
    assertThat(ios[0]).as("nothing received a week ago").isEqualTo("0");
    assertThat(ios[167]).isEqualTo(Integer.toString(fx.received()[0]));
    assertThat(driver.findElements(By.cssSelector("#chart-failure-rate-hourly line.threshold"))).as("the guard's threshold is drawn").hasSize(1);
    // the numbers the console was drawn from are the documented ones (ApiClient checks every answer against openapi.yaml)
    for (String route : List.of("/insights/updates/" + g2, "/insights/updates/" + g2 + "/hourly", "/insights/channels/production",
        "/updates/" + g2 + "/funnel")) {
      assertThat(api.get("/v1/apps/" + APP + route).status()).as(route).isEqualTo(200);
    }
    // the exact bodies devices get, one per platform
    List<WebElement> bodies = driver.findElements(By.cssSelector("main details pre"));
    assertThat(bodies).hasSize(2);
    for (WebElement pre : bodies) {
      assertThat(pre.getAttribute("textContent")).contains("\"launchAsset\"", "\"runtimeVersion\": \"1.0.0\"");
    }
    page("07-update");

    // finish the rollout from the update page
    driver.findElement(By.xpath("//summary[contains(., 'Finish rollout')]")).click();
    driver.findElement(By.id("finish-" + g2 + "-submit")).click();
    waitForText(By.id("status"), "finished");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/updates/" + g2), "group").path("rollout").path("status").asText()).isEqualTo("finished");

    // device lookup: the explanation of what the device was served, and the server's message for an unknown one
    driver.findElement(By.linkText("Device lookup")).click();
    waitForHeading("Device lookup");
    // the device is one of the fleet's served the new update inside the 10% rollout (its bucket computed from its client id)
    driver.findElement(By.id("device-id")).sendKeys(fx.lookup(), Keys.ENTER);
    waitForText(By.id("device-explanation"),
        "channel \"production\" → branch \"production\" → rollout bucket " + fx.lookupBucket() + " → update " + g2ios);
    assertThat(driver.findElement(By.id("device-explanation")).getText()).contains("(group " + g2 + ")");
    assertThat(driver.findElement(By.id("device-served")).getText()).contains("new-update", Integer.toString(fx.lookupBucket()),
        "branchname=\"production\"");
    page("08-device");
    WebElement id = driver.findElement(By.id("device-id"));
    id.clear();
    id.sendKeys("unknown-device", Keys.ENTER);
    String unknown = api.get("/v1/apps/" + APP + "/devices/unknown-device").errorMessage();
    assertThat(unknown).contains("unknown-device");
    waitForText(By.id("device-error"), unknown);

    // roll back to the first release: republish it from its card on the branch page
    driver.get(base + "/console/#/apps/" + APP + "/branches/production");
    waitForHeading("Branch production");
    driver.findElement(By.xpath("//article[@data-group-id='" + g1 + "']//summary[contains(., 'Roll back to this update')]")).click();
    driver.findElement(By.id("republish-" + g1 + "-submit")).click();
    waitForHeading("Roll back to “First release”");
    JsonNode g3 = newest("production");
    assertThat(g3.path("republishedFrom").asText()).isEqualTo(g1);
    assertThat(g3.path("message").asText()).isEqualTo("Roll back to “First release”");
    assertThat(driver.getCurrentUrl()).endsWith("/updates/" + g3.path("groupId").asText());

    // a new rollout over it, reverted in the page: the republished group comes back as a new one
    JsonNode g4 =
        api.publish(APP, Fixtures.update2(), "production", "1.0.0", Map.of("message", "Second try", "rolloutPercentage", 25));
    String g4id = g4.get("groupId").asText();
    driver.get(base + "/console/#/apps/" + APP + "/updates/" + g4id);
    waitForHeading("Second try");
    driver.findElement(By.xpath("//summary[contains(., 'Revert rollout')]")).click();
    driver.findElement(By.id("revert-reason-" + g4id)).sendKeys("crash on start");
    driver.findElement(By.id("revert-" + g4id + "-submit")).click();
    waitForText(By.id("status"), "reverted");
    JsonNode reverted = api.ok(api.get("/v1/apps/" + APP + "/updates/" + g4id), "group");
    assertThat(reverted.path("status").asText()).isEqualTo("reverted");
    assertThat(reverted.path("rollout").path("status").asText()).isEqualTo("reverted");
    String replacement = reverted.path("revertedBy").asText();
    assertThat(newest("production").path("groupId").asText()).isEqualTo(replacement);
    assertThat(driver.getCurrentUrl()).endsWith("/updates/" + replacement);

    // roll back to the embedded update, for every platform of the branch
    driver.get(base + "/console/#/apps/" + APP + "/branches/production");
    waitForHeading("Branch production");
    driver.findElement(By.xpath("//summary[contains(., 'Roll back to the embedded update')]")).click();
    driver.findElement(By.id("embedded-message")).sendKeys("Back to the store build");
    driver.findElement(By.id("embedded-rollback-submit")).click();
    waitForText(By.id("status"), "rolled back to the embedded update");
    JsonNode embedded = newest("production");
    assertThat(embedded.path("kind").asText()).isEqualTo("rollBackToEmbedded");
    assertThat(embedded.path("platforms")).extracting(p -> p.path("platform").asText()).containsExactlyInAnyOrder("android", "ios");
    assertThat(driver.findElements(By.cssSelector("#groups article.card")).get(0).getText()).contains("roll back to embedded", "Back to the store build");

    // the audit log: everything this test did to the app, newest first, each with its actor
    driver.findElement(By.linkText("Audit log")).click();
    waitForHeading("Audit log of " + APP);
    List<Map<String, String>> rows = auditRows();
    assertThat(rows)
        .extracting(r -> r.get("type"))
        .containsExactly(
            "update.rolled-back-to-embedded", "rollout.reverted", "update.published", "update.published", "rollout.finished",
            "rollout.changed", "rollout.changed", "channel.mapped", "channel.mapped", "update.published", "update.published",
            "app.created");
    assertThat(rows).allSatisfy(r -> assertThat(r).containsEntry("actor", "admin"));
    assertThat(rows.get(6).get("summary")).as("the percentage change made in the page").contains(g2, "50%");
    assertThat(rows.get(1).get("summary")).contains(g4id, "crash on start", replacement);
    assertThat(rows.get(3).get("summary")).contains("republished group " + g1);
    page("09-audit");

    // paged: the page size chosen in the page, then 5 entries a page and the next 5 older ones
    new Select(driver.findElement(By.id("audit-limit"))).selectByValue("20");
    driver.findElement(By.cssSelector("#audit-limit-form button")).click();
    wait.until(ExpectedConditions.urlContains("/audit?limit=20"));
    waitForHeading("Audit log of " + APP);
    assertThat(auditRows()).hasSize(12);
    driver.get(base + "/console/#/apps/" + APP + "/audit?limit=5");
    waitForText(By.cssSelector("#audit-table caption"), "Newest entries");
    // the caption of the 20-entry page said the same: wait for the page of 5
    wait.until(d -> d.findElements(By.cssSelector("#audit-table tbody tr")).size() == 5);
    assertThat(auditRows()).extracting(r -> r.get("type")).containsExactlyElementsOf(types(rows.subList(0, 5)));
    driver.findElement(By.id("older-entries")).click();
    waitForText(By.cssSelector("#audit-table caption"), "Entries before #8");
    assertThat(auditRows()).extracting(r -> r.get("type")).containsExactlyElementsOf(types(rows.subList(5, 10)));
    driver.findElement(By.id("older-entries")).click();
    waitForText(By.cssSelector("#audit-table caption"), "Entries before #3");
    assertThat(auditRows()).extracting(r -> r.get("type")).containsExactly("update.published", "app.created");
    assertThat(driver.findElements(By.id("older-entries"))).isEmpty();
    driver.findElement(By.id("newest-entries")).click();
    waitForText(By.cssSelector("#audit-table caption"), "Newest entries");

    // the apps list, as the admin token sees it
    driver.findElement(By.linkText("Apps")).click();
    waitForHeading("Apps");
    assertThat(driver.findElement(By.id("apps-table")).getText()).contains(APP, "Console demo", BARE_APP);
    page("02-apps");

    // the default channel, set on the channels page (after the audit checks above, which list the events before it)
    driver.get(base + "/console/#/apps/" + APP + "/channels");
    waitForHeading("Channels of " + APP);
    fill(By.id("default-channel"), "production");
    driver.findElement(By.id("default-channel-form-submit")).click();
    waitForText(By.id("default-channel-text"), "answered for channel production");
    assertThat(api.ok(api.get("/v1/apps/" + APP), "app").get("defaultChannel").asText()).isEqualTo("production");
    assertThat(auditTypesNow()).startsWith("app.updated");

    // pause a channel on its page (a kill switch: its devices get no update), see it marked, resume it
    String bucketsOfProduction = channel("production").path("rollout").path("rolloutId").asText();
    driver.get(base + "/console/#/apps/" + APP + "/channels/production");
    waitForHeading("Channel production");
    driver.findElement(By.id("channel-pause-form-submit")).click();
    waitForText(By.id("channel-pause-text"), "This channel is paused");
    assertThat(driver.findElement(By.id("channel-mapping")).getText()).contains("is paused");
    assertThat(channel("production").path("paused").asBoolean()).isTrue();
    assertThat(channel("production").path("rollout").path("rolloutId").asText()).as("a pause keeps the bucketing").isEqualTo(bucketsOfProduction);
    driver.findElement(By.linkText("Channels")).click();
    waitForHeading("Channels of " + APP);
    assertThat(driver.findElement(By.id("channels-table")).getText()).contains("paused");
    driver.get(base + "/console/#/apps/" + APP + "/channels/production");
    waitForHeading("Channel production");
    driver.findElement(By.id("channel-pause-form-submit")).click();
    waitForText(By.id("status"), "is resumed");
    assertThat(channel("production").path("paused").asBoolean()).isFalse();
    assertThat(channel("production").path("rollout").path("rolloutId").asText()).isEqualTo(bucketsOfProduction);
    assertThat(auditTypesNow()).startsWith("channel.mapped", "channel.mapped", "app.updated");
  }

  @Test
  @Order(3)
  void pinKeepAndDeleteInThePage() throws Exception {
    List<JsonNode> groups = new ArrayList<>();
    api.ok(api.get("/v1/apps/" + APP + "/updates?branch=production&runtimeVersion=1.0.0&limit=50"), "updates").get("items").forEach(groups::add);
    String newestId = groups.get(0).path("groupId").asText();
    String g1 = groups.get(groups.size() - 1).path("groupId").asText();
    assertThat(groups.get(groups.size() - 1).path("message").asText()).isEqualTo("First release");

    // pin the first release on the branch page: marked, and in the app's retention view
    driver.get(base + "/console/#/apps/" + APP + "/branches/production");
    waitForHeading("Branch production");
    assertThat(driver.findElements(By.id("pinned-" + g1))).isEmpty();
    driver.findElement(By.id("pin-" + g1 + "-submit")).click();
    waitForText(By.id("status"), "is pinned");
    waitForText(By.id("pinned-" + g1), "pinned");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/retention"), "retention").get("pinned")).extracting(JsonNode::asText).containsExactly(g1);
    assertThat(driver.findElement(By.id("pin-" + g1 + "-submit")).getText()).isEqualTo("Unpin");

    // the branch's retention policy: keep 50, at most 90 days old (nothing to delete here)
    fill(By.id("retention-branch-keep"), "50");
    fill(By.id("retention-branch-max-age"), "90d");
    driver.findElement(By.id("retention-branch-form-submit")).click();
    waitForText(By.id("retention-branch-text"), "Branch production keeps the newest 50 update groups per runtime version, and none older than 90 days");
    JsonNode policy = policy("production");
    assertThat(policy.path("keep").asInt()).isEqualTo(50);
    assertThat(policy.path("maxAgeSeconds").asLong()).isEqualTo(Duration.ofDays(90).toSeconds());
    assertThat(policy.path("setBy").asText()).isEqualTo("admin");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/updates?branch=production&runtimeVersion=1.0.0&limit=50"), "updates").get("items"))
        .as("keep 50 deletes none of the branch's groups").hasSize(groups.size());
    page("10-branch-retention");

    // the app's policy on the branches page: set, seen through the API, removed
    driver.findElement(By.linkText("Branches and updates")).click();
    waitForHeading("Branches of " + APP);
    assertThat(driver.findElement(By.id("pinned-groups")).getText()).contains(g1);
    fill(By.id("retention-app-keep"), "100");
    driver.findElement(By.id("retention-app-form-submit")).click();
    waitForText(By.id("retention-app-text"), "The app keeps the newest 100 update groups");
    assertThat(policy(null).path("keep").asInt()).isEqualTo(100);
    assertThat(policy(null).path("maxAgeSeconds").isNull()).isTrue();
    // applying the policies now: keep 100 and keep 50 leave every group, and the page says so
    driver.findElement(By.id("retention-apply-submit")).click();
    waitForText(By.id("status"), "Retention applied: nothing to delete.");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/updates?branch=production&runtimeVersion=1.0.0&limit=50"), "updates").get("items"))
        .hasSize(groups.size());
    driver.findElement(By.id("retention-app-remove-submit")).click();
    waitForText(By.id("retention-app-text"), "The app has no retention policy of its own");
    assertThat(policy(null)).isNull();
    assertThat(policy("production")).as("the branch's own policy stays").isNotNull();

    // deleting the newest group a channel serves: the server's 409 in the page, then with force
    ApiClient.Resp refused = api.delete("/v1/apps/" + APP + "/updates/" + newestId);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.errorMessage()).contains("production");
    driver.findElement(By.linkText("production")).click();
    waitForHeading("Branch production");
    driver.findElement(By.xpath("//article[@data-group-id='" + newestId + "']//summary[contains(., 'Delete this update')]")).click();
    driver.findElement(By.id("delete-" + newestId + "-submit")).click();
    waitForText(By.id("delete-" + newestId + "-error"), refused.errorMessage());
    assertThat(driver.findElement(By.id("delete-" + newestId + "-error")).getText()).contains("served-by-channel");
    page("11-delete-refused");
    driver.findElement(By.id("delete-force-" + newestId)).click();
    driver.findElement(By.id("delete-" + newestId + "-submit")).click();
    waitForText(By.id("status"), "Deleted");
    assertThat(api.get("/v1/apps/" + APP + "/updates/" + newestId).status()).isEqualTo(404);
    assertThat(driver.findElements(By.cssSelector("#groups article.card"))).hasSize(groups.size() - 1);
    assertThat(newest("production").path("groupId").asText()).isEqualTo(groups.get(1).path("groupId").asText());

    // deleting an older group from its own page: no channel serves it, no force needed; back on its branch
    String older = groups.get(2).path("groupId").asText();
    driver.get(base + "/console/#/apps/" + APP + "/updates/" + older);
    waitForHeading(groups.get(2).path("message").asText());
    driver.findElement(By.xpath("//summary[contains(., 'Delete this update')]")).click();
    driver.findElement(By.id("delete-" + older + "-submit")).click();
    waitForHeading("Branch production");
    waitForText(By.id("status"), "Deleted");
    assertThat(api.get("/v1/apps/" + APP + "/updates/" + older).status()).isEqualTo(404);
    assertThat(driver.findElements(By.cssSelector("#groups article.card"))).hasSize(groups.size() - 2);

    // a channel: the default channel is refused with the server's message, another one is deleted
    api.ok(api.put("/v1/apps/" + APP + "/channels/staging", Map.of("branch", "production")), "map staging");
    driver.get(base + "/console/#/apps/" + APP + "/channels/production");
    waitForHeading("Channel production");
    String notDefault = api.delete("/v1/apps/" + APP + "/channels/production").errorMessage();
    driver.findElement(By.xpath("//summary[contains(., 'Delete this channel')]")).click();
    driver.findElement(By.id("delete-channel-submit")).click();
    waitForText(By.id("delete-channel-error"), notDefault);
    assertThat(driver.findElement(By.id("delete-channel-error")).getText()).contains("default-channel");
    driver.get(base + "/console/#/apps/" + APP + "/channels/staging");
    waitForHeading("Channel staging");
    driver.findElement(By.xpath("//summary[contains(., 'Delete this channel')]")).click();
    driver.findElement(By.id("delete-channel-submit")).click();
    waitForHeading("Channels of " + APP);
    waitForText(By.id("status"), "Deleted channel staging");
    assertThat(api.ok(api.get("/v1/apps/" + APP + "/channels"), "channels").get("items")).extracting(c -> c.path("channel").asText()).containsExactly("production");

    // an app: the wrong id typed is refused by the server, the right one deletes it
    String doomed = "doomed-app";
    api.ok(api.post("/v1/apps", Map.of("appId", doomed)), "create " + doomed);
    driver.get(base + "/console/#/apps/" + doomed + "/channels");
    waitForHeading("Channels of " + doomed);
    driver.findElement(By.xpath("//summary[contains(., 'Delete this app')]")).click();
    fill(By.id("delete-app-confirm"), APP);
    driver.findElement(By.id("delete-app-submit")).click();
    waitForText(By.id("delete-app-error"), "confirmation-mismatch");
    assertThat(api.get("/v1/apps/" + doomed).status()).isEqualTo(200);
    fill(By.id("delete-app-confirm"), doomed);
    driver.findElement(By.id("delete-app-submit")).click();
    waitForHeading("Apps");
    waitForText(By.id("status"), "Deleted app " + doomed);
    assertThat(api.get("/v1/apps/" + doomed).status()).isEqualTo(404);
    assertThat(api.get("/v1/apps/" + APP).status()).isEqualTo(200);

    // each of them in the audit log, by the admin
    assertThat(auditTypesNow()).startsWith(
        "channel.deleted", "channel.mapped", "updates.deleted", "updates.deleted", "retention.set", "retention.set", "retention.set", "update.pinned");
  }

  /** The app's retention policy of {@code branch} (null: the app-wide one) from the API; null when none. */
  private static JsonNode policy(String branch) {
    for (JsonNode p : api.ok(api.get("/v1/apps/" + APP + "/retention"), "retention").get("policies")) {
      if (branch == null ? p.path("branch").isNull() || p.path("branch").isMissingNode() : branch.equals(p.path("branch").asText())) {
        return p;
      }
    }
    return null;
  }

  @Test
  @Order(4)
  void issueAndRevokeTokensAndRotateKeysInThePage() throws Exception {
    String app = "console-access";
    api.ok(api.post("/v1/apps", Map.of("appId", app)), "create " + app);
    driver.get(base + "/console/#/apps/" + app + "/access");
    waitForHeading("Tokens and keys of " + app);
    assertThat(driver.findElement(By.tagName("main")).getText()).contains("No token yet").contains("Not signed");

    // a publish token for CI: its secret is shown once and works against the API
    fill(By.id("token-label"), "GitHub Actions, main");
    new Select(driver.findElement(By.id("token-expires-in"))).selectByValue("30d");
    driver.findElement(By.id("issue-token-submit")).click();
    waitForText(By.id("issued-token"), "Issued publish token");
    String secret = driver.findElement(By.id("issued-token-secret")).getText();
    assertThat(secret).startsWith("updraft_");
    ApiClient ci = api.withToken(secret);
    assertThat(ci.get("/v1/apps/" + app + "/keys").status()).as("the issued token reads its app").isEqualTo(200);
    JsonNode issued = api.ok(api.get("/v1/apps/" + app + "/tokens"), "tokens").get("items").get(0);
    assertThat(issued.path("role").asText()).isEqualTo("publish");
    assertThat(issued.path("label").asText()).isEqualTo("GitHub Actions, main");
    assertThat(Duration.between(Instant.parse(issued.path("issuedAt").asText()), Instant.parse(issued.path("expiresAt").asText())))
        .as("issued to expire in 30 days").isEqualTo(Duration.ofDays(30));
    String tokenId = issued.path("tokenId").asText();
    waitForText(By.id("tokens-table"), "GitHub Actions, main");

    // sign the app: the fixture key as main, then a second key joins the ring and main is retired
    driver.findElement(By.xpath("//summary[starts-with(., 'Add a key')]")).click();
    fill(By.id("key-cert"), Files.readString(Fixtures.certificatePem()));
    fill(By.id("key-private"), Files.readString(Fixtures.privateKeyPkcs1Pem()));
    driver.findElement(By.id("register-key-submit")).click();
    waitForText(By.id("status"), "Registered key main");
    waitForText(By.id("keys-table"), "main");
    assertThat(driver.findElements(By.id("retire-main-submit"))).as("the only key cannot be retired").isEmpty();
    TestCertificates.Issued next = TestCertificates.selfSigned("Updraft console k2", Duration.ofDays(400));
    driver.findElement(By.xpath("//summary[starts-with(., 'Add a key')]")).click();
    fill(By.id("key-id"), "k2");
    fill(By.id("key-cert"), next.certificatePem());
    fill(By.id("key-private"), next.privateKeyPem());
    driver.findElement(By.id("register-key-submit")).click();
    waitForText(By.id("status"), "Registered key k2");
    assertThat(keyIds(app)).containsExactly("main", "k2");
    waitForText(By.xpath("//tr[@data-key-id='main']/td[@class='key-asked']"), "not in 30 days"); // no device asked for it
    page("12-access");
    driver.findElement(By.xpath("//tr[@data-key-id='main']//summary")).click();
    driver.findElement(By.id("retire-main-submit")).click();
    waitForText(By.id("status"), "Retired key main");
    assertThat(keyIds(app)).containsExactly("k2");

    // revoke the CI token: the API refuses it from then on, the table says when
    driver.findElement(By.xpath("//tr[@data-token-id='" + tokenId + "']//summary")).click();
    driver.findElement(By.id("revoke-" + tokenId + "-submit")).click();
    waitForText(By.id("status"), "Revoked token " + tokenId);
    assertThat(ci.get("/v1/apps/" + app + "/keys").status()).as("the revoked token").isEqualTo(401);
    waitForText(By.id("tokens-table"), "revoked");

    // a read token sees the key ring and is told why the tokens are not listed
    String reader = api.ok(api.post("/v1/apps/" + app + "/tokens", Map.of("role", "read")), "read token").path("token").asText();
    JavascriptExecutor js = (JavascriptExecutor) driver;
    js.executeScript("sessionStorage.setItem('updraft.console.token', arguments[0]);", reader);
    driver.navigate().refresh();
    waitForText(By.id("tokens-refused"), "cannot list the app’s tokens");
    waitForText(By.id("keys-table"), "k2");
    check("access with a read token");
    js.executeScript("sessionStorage.setItem('updraft.console.token', arguments[0]);", ADMIN);
  }

  private static List<String> keyIds(String app) {
    List<String> out = new ArrayList<>();
    api.ok(api.get("/v1/apps/" + app + "/keys"), "keys").get("items").forEach(k -> out.add(k.path("keyId").asText()));
    return out;
  }

  @Test
  @Order(5)
  void registerBuildsWithTheirExpoUpdatesVersionInThePage(@TempDir Path dir) throws Exception {
    String app = "console-builds";
    api.ok(api.post("/v1/apps", Map.of("appId", app)), "create " + app);
    Path bundle = Files.write(dir.resolve("main.jsbundle"), "var build = 'console';\n".repeat(200).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    driver.get(base + "/console/#/apps/" + app + "/builds");
    waitForHeading("Builds of " + app);
    assertThat(driver.findElement(By.tagName("main")).getText()).contains("No build registered yet");

    // a version that is no release: the API's 400 shows in the form, nothing is registered
    registerBuild(bundle, "4d3c2b1a-0000-4000-8000-0000000000b1", "latest");
    waitForText(By.id("register-build-error"), "expoUpdatesVersion must be an expo-updates release");
    assertThat(api.ok(api.get("/v1/apps/" + app + "/builds"), "builds").path("builds")).isEmpty();

    // a fixed release: its devices get patches; one before the fixes: the full bundle
    registerBuild(bundle, "4d3c2b1a-0000-4000-8000-0000000000b1", "57.0.24");
    waitForText(By.id("status"), "its devices get patches from its bundle");
    registerBuild(bundle, "4d3c2b1a-0000-4000-8000-0000000000b2", "57.0.22");
    waitForText(By.id("status"), "its devices get the full bundle");
    waitForText(By.cssSelector("tr[data-embedded-update-id='4d3c2b1a-0000-4000-8000-0000000000b2'] .embedded-patches"), "no: full bundle");
    assertThat(driver.findElement(By.cssSelector("tr[data-embedded-update-id='4d3c2b1a-0000-4000-8000-0000000000b1'] .expo-updates-version")).getText())
        .isEqualTo("57.0.24");
    JsonNode builds = api.ok(api.get("/v1/apps/" + app + "/builds"), "builds").path("builds");
    assertThat(builds).hasSize(2);
    assertThat(builds.toString()).contains("\"expoUpdatesVersion\":\"57.0.22\",\"embeddedPatches\":false");
    page("13-builds");

    // patches devices could not use, as the ingester stores them (patch_outcomes): on the update page and per build
    JsonNode update = null;
    for (JsonNode g : api.ok(api.get("/v1/apps/" + APP + "/updates?branch=production&runtimeVersion=1.0.0&limit=50"), "updates").get("items")) {
      if (update == null && g.path("kind").asText().equals("update")) {
        update = g;
      }
    }
    assertThat(update).as("an update of %s", APP).isNotNull();
    String iosId = null;
    for (JsonNode p : update.path("platforms")) {
      if (p.path("platform").asText().equals("ios")) {
        iosId = p.path("updateId").asText();
      }
    }
    io.vertx.sqlclient.Pool pg = io.vertx.pgclient.PgBuilder.pool()
        .connectingTo(io.vertx.pgclient.PgConnectOptions.fromUri(postgresUrl)).using(vertx).build();
    try {
      await(pg.preparedQuery("INSERT INTO patch_outcomes (app_id, base_update_id, update_id, platform, from_embedded, served, failed, last_seen)"
              + " VALUES ($1, $2, $3, 'ios', true, 30, 25, now()), ($1, $4, $3, 'ios', false, 400, 3, now())")
          .execute(io.vertx.sqlclient.Tuple.of(APP, "4d3c2b1a-0000-4000-8000-0000000000c1", iosId, "4d3c2b1a-0000-4000-8000-0000000000c2")));
    } finally {
      await(pg.close());
    }
    driver.get(base + "/console/#/apps/" + APP + "/updates/" + update.path("groupId").asText());
    waitForText(By.id("patch-outcomes-ios"), "could not use");
    WebElement failing = driver.findElement(By.cssSelector("#patch-outcomes-ios tr[data-base-update-id='4d3c2b1a-0000-4000-8000-0000000000c1']"));
    assertThat(failing.getText()).contains("a build’s embedded bundle", "30", "25", "stopped: too many failed");
    assertThat(driver.findElement(By.cssSelector("#patch-outcomes-ios tr[data-base-update-id='4d3c2b1a-0000-4000-8000-0000000000c2']")).getText())
        .contains("an update", "400", "3", "served");
    page("14-update-patch-outcomes");
  }

  private static void registerBuild(Path bundle, String embeddedId, String version) {
    fill(By.id("build-runtime-version"), "1.0.0");
    fill(By.id("build-embedded-update-id"), embeddedId);
    fill(By.id("build-expo-updates-version"), version);
    driver.findElement(By.id("build-bundle")).sendKeys(bundle.toAbsolutePath().toString());
    driver.findElement(By.id("register-build-submit")).click();
  }

  @Test
  @Order(6)
  void insightsPagesSayWhenTheRoutesAreMissing() throws Exception {
    // a control plane without the insights extension: the router answers its own 404
    driver.get(bareBase + "/console/");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token"))).sendKeys(ADMIN, Keys.ENTER);
    waitForHeading("Apps");
    driver.get(bareBase + "/console/#/apps/" + BARE_APP + "/devices/some-device");
    waitForText(By.id("device-unavailable"), "not available on this control plane");
    driver.get(bareBase + "/console/#/apps/" + BARE_APP + "/channels/production");
    waitForText(By.id("adoption-unavailable"), "not available on this control plane");
    assertThat(driver.findElement(By.id("channel-mapping")).getText()).contains("is not mapped");
    check("bare-app channel");
  }

  @Test
  @Order(7)
  void signOutForgetsTheToken() {
    driver.get(base + "/console/#/apps");
    waitForHeading("Apps");
    driver.findElement(By.id("sign-out")).click();
    waitForHeading("Sign in");
    assertThat(sessionToken()).isNull();
    driver.get(base + "/console/#/apps/" + APP + "/audit");
    waitForHeading("Sign in");
    assertThat(browserErrors()).as("no script error or blocked resource in the browser console").isEmpty();
  }

  @Test
  @Order(8)
  void aPersonSignsInWithTheProviderActsWithinTheirRoleIsRefusedBeyondItAndSignsOut() throws Exception {
    driver.get(bareBase + "/console/#/signin");
    wait.until(ExpectedConditions.elementToBeClickable(By.id("signin-oidc"))).click();
    // the provider's own login page: a user name and the claims its ID token carries
    try {
      wait.until(ExpectedConditions.visibilityOfElementLocated(By.name("username"))).sendKeys("ana");
    } catch (org.openqa.selenium.TimeoutException e) {
      String src = driver.getPageSource();
      throw new AssertionError("no provider login page at " + driver.getCurrentUrl() + ": " + src.substring(0, Math.min(src.length(), 1500)), e);
    }
    driver.findElement(By.name("claims")).sendKeys("{\"email\":\"ana@example.com\",\"groups\":[\"" + Provider.PUBLISHERS + "\"]}");
    driver.findElement(By.cssSelector("input[type=submit]")).click();
    waitForHeading("Apps");
    // reading the log empties it: the provider's page links a web font, which loopback-only Chromium cannot fetch
    assertThat(browserErrors()).as("only the provider's page had errors").allMatch(m -> m.startsWith("http://fonts.googleapis.com/"));
    assertThat(driver.findElement(By.id("signed-in-as")).getText()).isEqualTo("Signed in as ana@example.com");
    assertThat(driver.findElement(By.id("apps-table")).getText()).contains(BARE_APP).doesNotContain(OTHER_APP);
    assertThat(driver.findElements(By.id("create-app-heading"))).as("only the admin token creates apps").isEmpty();
    assertThat(sessionToken()).as("no token in the tab: the HttpOnly cookie signs the calls").isNull();
    page("20-signed-in-with-provider");

    // within the role (publish on bare-app): map a channel, and the API has it
    driver.get(bareBase + "/console/#/apps/" + BARE_APP + "/channels");
    waitForHeading("Channels of " + BARE_APP);
    driver.findElement(By.id("map-channel")).sendKeys("staging");
    driver.findElement(By.id("map-branch")).sendKeys("staging");
    driver.findElement(By.id("map-channel-form-submit")).click();
    waitForHeading("Channel staging");
    ApiClient bareAdmin = new ApiClient(bareBase, ADMIN);
    assertThat(bareAdmin.ok(bareAdmin.get("/v1/apps/" + BARE_APP + "/channels"), "channels").toString()).contains("\"staging\"");

    // beyond it: the tokens need admin, and another app is not theirs; the page says so
    driver.get(bareBase + "/console/#/apps/" + BARE_APP + "/access");
    waitForText(By.id("tokens-refused"), "has role publish on app " + BARE_APP + "; this needs role admin");
    driver.get(bareBase + "/console/#/apps/" + OTHER_APP + "/channels");
    waitForText(By.id("page-error"), "has no role on app " + OTHER_APP);
    page("21-refused-outside-the-role");
    String cookie = "updraft-session=" + driver.manage().getCookieNamed("updraft-session").getValue();
    assertThat(Provider.withCookie(bareBase + "/v1/apps/" + BARE_APP + "/channels", cookie).statusCode()).isEqualTo(200);
    assertThat(Provider.withCookie(bareBase + "/v1/apps/" + OTHER_APP + "/channels", cookie).statusCode()).isEqualTo(403);
    assertThat(Provider.withCookie(bareBase + "/v1/apps/" + BARE_APP + "/tokens", cookie).body()).contains("\"forbidden\"");

    // sign out: the session ends on the server, so even a kept copy of the cookie stops working
    driver.get(bareBase + "/console/#/apps");
    waitForHeading("Apps");
    driver.findElement(By.id("sign-out")).click();
    waitForHeading("Sign in");
    assertThat(driver.manage().getCookieNamed("updraft-session")).as("the browser's cookie is cleared").isNull();
    var after = Provider.withCookie(bareBase + "/v1/apps/" + BARE_APP + "/channels", cookie);
    assertThat(after.statusCode()).isEqualTo(401);
    assertThat(after.body()).contains("session-expired");
    driver.get(bareBase + "/console/#/apps/" + BARE_APP + "/channels");
    waitForHeading("Sign in");
    // this control plane runs without PostgreSQL: the access page's read of which keys devices ask for answers 200
    // known: false (shown as "unknown"); nothing may be in the browser console
    assertThat(browserErrors()).as("no script error, failed request or blocked resource in the browser console").isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  private static JsonNode channel(String name) {
    for (JsonNode c : api.ok(api.get("/v1/apps/" + APP + "/channels"), "channels").get("items")) {
      if (c.path("channel").asText().equals(name)) {
        return c;
      }
    }
    throw new AssertionError("no channel " + name);
  }

  /** The newest group on a branch (runtime 1.0.0), as the API lists it. */
  private static JsonNode newest(String branch) {
    return api.ok(api.get("/v1/apps/" + APP + "/updates?branch=" + branch + "&runtimeVersion=1.0.0&limit=1"), "updates").get("items").get(0);
  }

  private static List<String> types(List<Map<String, String>> rows) {
    List<String> out = new ArrayList<>();
    rows.forEach(r -> out.add(r.get("type")));
    return out;
  }

  /** The app's audit types, newest first, from the API. */
  private static List<String> auditTypesNow() {
    List<String> out = new ArrayList<>();
    api.ok(api.get("/v1/apps/" + APP + "/audit"), "audit").get("items").forEach(i -> out.add(i.get("type").asText()));
    return out;
  }

  private static String sessionToken() {
    return (String) ((JavascriptExecutor) driver).executeScript("return sessionStorage.getItem('updraft.console.token');");
  }

  private static void fill(By by, String value) {
    WebElement e = driver.findElement(by);
    e.clear();
    e.sendKeys(value);
  }

  private static void waitForHeading(String text) {
    wait.until(d -> {
      List<WebElement> h1 = d.findElements(By.cssSelector("main h1"));
      return !h1.isEmpty() && h1.get(0).getText().equals(text) && d.findElement(By.id("main")).getAttribute("aria-busy") == null;
    });
    assertNoBrokenText(text);
  }

  /**
   * What a script bug prints instead of a value: an object turned into text ({@code [object HTMLElement]}),
   * {@code undefined}, {@code NaN}, {@code Invalid Date}, anywhere in the page's visible text, in the value of a
   * field, or in a tooltip or accessible name.
   */
  static final java.util.regex.Pattern BROKEN_TEXT = java.util.regex.Pattern.compile("\\[object |\\bundefined\\b|\\bNaN\\b|Invalid Date");

  /** Fails, naming the page and quoting the text around it, when the page shows {@link #BROKEN_TEXT}. */
  @SuppressWarnings("unchecked")
  private static void assertNoBrokenText(String page) {
    List<String> texts = (List<String>) ((JavascriptExecutor) driver).executeScript(
        "const t = [document.body.innerText];"
            + "for (const e of document.querySelectorAll('input, select, textarea')) { if (e.type !== 'hidden' && e.type !== 'password') t.push(e.value); }"
            + "for (const e of document.querySelectorAll('[title], [aria-label], [alt], [placeholder]')) {"
            + "  for (const a of ['title', 'aria-label', 'alt', 'placeholder']) { if (e.hasAttribute(a)) t.push(e.getAttribute(a)); }"
            + "}"
            + "t.push(document.title);"
            + "return t;");
    List<String> found = new ArrayList<>();
    for (String t : texts) {
      java.util.regex.Matcher m = BROKEN_TEXT.matcher(t == null ? "" : t);
      while (m.find()) {
        found.add("'" + t.substring(Math.max(0, m.start() - 60), Math.min(t.length(), m.end() + 60)).replace('\n', ' ') + "'");
      }
    }
    assertThat(found).as("text a script bug printed (an object, undefined, NaN, an invalid date) on page %s", page).isEmpty();
  }

  private static void waitForText(By by, String text) {
    try {
      wait.until(ExpectedConditions.textToBePresentInElementLocated(by, text));
    } catch (org.openqa.selenium.TimeoutException e) {
      List<WebElement> found = driver.findElements(by);
      throw new AssertionError("no text '" + text + "' in " + by + " within " + WAIT + "; it shows: "
          + (found.isEmpty() ? "(no such element)" : found.get(0).getText()) + "\npage: " + driver.findElement(By.tagName("main")).getText(), e);
    }
  }

  /** The text summary a chart gives screen readers: its numbers, as drawn. */
  private static String chartSummary(String chartId) {
    WebElement desc = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#" + chartId + " desc")));
    return desc.getAttribute("textContent");
  }

  /** The audit table's rows, read again when the page re-renders while they are read. */
  private static List<Map<String, String>> auditRows() {
    return wait.until(d -> {
      List<Map<String, String>> out = new ArrayList<>();
      for (WebElement tr : d.findElements(By.cssSelector("#audit-table tbody tr"))) {
        Map<String, String> r = new LinkedHashMap<>();
        r.put("type", tr.findElement(By.cssSelector("td.event-type")).getText());
        r.put("actor", tr.findElement(By.cssSelector("td.actor")).getText());
        r.put("summary", tr.findElement(By.cssSelector("td.summary")).getText());
        out.add(r);
      }
      return out;
    });
  }

  /** Checks the page's accessibility basics, then saves a full-page screenshot. */
  private static void page(String name) throws IOException {
    check(name);
    assertNoBrokenText(name);
    JavascriptExecutor js = (JavascriptExecutor) driver;
    // grow the window to the whole page (the outer window is taller than its viewport, so measure twice)
    for (int i = 0; i < 2; i++) {
      long content = ((Number) js.executeScript("return document.documentElement.scrollHeight;")).longValue();
      long viewport = ((Number) js.executeScript("return window.innerHeight;")).longValue();
      Dimension now = driver.manage().window().getSize();
      long wanted = Math.max(900, Math.min(now.getHeight() + content - viewport, 6000));
      driver.manage().window().setSize(new Dimension(1280, (int) wanted));
    }
    js.executeScript("window.scrollTo(0, 0);");
    try {
      byte[] png = ((org.openqa.selenium.TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
      Files.write(SCREENSHOTS.resolve(name + ".png"), png);
    } finally {
      driver.manage().window().setSize(new Dimension(1280, 900));
    }
  }

  /**
   * What every page must have: a language, one h1, a main landmark, a label for every control, text on
   * every button, a name on every chart and image, and unique ids.
   */
  @SuppressWarnings("unchecked")
  private static void check(String name) {
    List<String> problems =
        (List<String>)
            ((JavascriptExecutor) driver)
                .executeScript(
                    "const p = [];"
                        + "if (!document.documentElement.lang) p.push('html has no lang');"
                        + "if (document.querySelectorAll('h1').length !== 1) p.push('h1 count ' + document.querySelectorAll('h1').length);"
                        + "if (!document.querySelector('main')) p.push('no main');"
                        + "for (const e of document.querySelectorAll('input, select, textarea')) {"
                        + "  if (e.type === 'hidden') continue;"
                        + "  const named = (e.labels && e.labels.length) || e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');"
                        + "  if (!named) p.push('unlabelled ' + e.tagName + '#' + e.id);"
                        + "}"
                        + "for (const b of document.querySelectorAll('button, a[href]')) {"
                        + "  if (!b.textContent.trim() && !b.getAttribute('aria-label')) p.push('no text on ' + b.outerHTML.slice(0, 80));"
                        + "}"
                        + "for (const s of document.querySelectorAll('svg[role=img]')) {"
                        + "  const id = s.getAttribute('aria-labelledby'); const l = id && document.getElementById(id);"
                        + "  if (!l || !l.textContent.trim()) p.push('chart without a name');"
                        + "}"
                        + "for (const i of document.querySelectorAll('img')) { if (!i.hasAttribute('alt')) p.push('img without alt'); }"
                        + "const ids = new Map(); for (const e of document.querySelectorAll('[id]')) ids.set(e.id, (ids.get(e.id) || 0) + 1);"
                        + "for (const [k, v] of ids) { if (v > 1) p.push('duplicate id ' + k); }"
                        + "return p;");
    assertThat(problems).as("accessibility basics on page %s", name).isEmpty();
  }

  /** Script errors and refused loads in the browser console (expected 4xx answers of the API aside). */
  private static List<String> browserErrors() {
    List<String> out = new ArrayList<>();
    for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
      String m = e.getMessage();
      if (e.getLevel().intValue() >= Level.SEVERE.intValue() && !m.contains("the server responded with a status of 4")) {
        out.add(m);
      }
    }
    return out;
  }

  /** The cells of the numbers table's row of {@code platform} after its update id. */
  private static List<String> insightsRow(String platform) {
    for (WebElement tr : driver.findElements(By.cssSelector("#insights-table tbody tr"))) {
      if (tr.findElement(By.tagName("th")).getText().equals(platform)) {
        List<String> cells = new ArrayList<>();
        for (WebElement td : tr.findElements(By.tagName("td"))) {
          cells.add(td.getText());
        }
        return cells.subList(1, cells.size());
      }
    }
    throw new AssertionError("no row " + platform + " in the numbers table");
  }

  /** A share as the console prints it: whole numbers bare, others with one decimal. */
  private static String percent(double v) {
    return v == Math.rint(v) ? (long) v + "%" : String.format(Locale.ROOT, "%.1f%%", v);
  }

  /** One sample of a service's {@code /metrics}; -1 when absent. */
  private static double metric(String url, String series) {
    try {
      String text = java.net.http.HttpClient.newHttpClient()
          .send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
          .body();
      for (String line : text.split("\n")) {
        if (line.startsWith(series + " ")) {
          return Double.parseDouble(line.substring(series.length() + 1).trim());
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Polls every 100 ms for up to {@link #WAIT}. */
  private static void until(String what, BooleanSupplier done) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + WAIT.toSeconds() + " s: " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
  }
}
