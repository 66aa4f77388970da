package dev.updraft.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.updraft.testing.openapi.OpenApiContract;
import io.swagger.parser.OpenAPIParser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/**
 * docs/api/openapi.yaml read by validators we did not write: the Swagger parser finds no error and no
 * warning in it, and the response validator every integration test's HTTP client runs refuses answers
 * the description does not list (a status, a body shape, a content type), so the description cannot
 * drift from what the routes answer.
 */
class OpenApiDescriptionTest {
  static final byte[] APP = "{\"appId\":\"demo\",\"displayName\":null,\"createdAt\":\"2026-11-30T12:00:00Z\",\"createdBy\":\"admin\",\"lastSequence\":1,\"signing\":null}".getBytes(StandardCharsets.UTF_8);

  @Test
  void theSwaggerParserReadsTheDescriptionWithoutAnErrorOrAWarning() throws Exception {
    String yaml = Files.readString(OpenApiContract.descriptionFile(), StandardCharsets.UTF_8);
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    options.setValidateInternalRefs(true);
    SwaggerParseResult result = new OpenAPIParser().readContents(yaml, null, options);
    assertThat(result.getMessages()).as("messages of the Swagger parser").isEmpty();
    assertThat(result.getOpenAPI()).isNotNull();
    assertThat(result.getOpenAPI().getPaths()).containsKeys("/v1/apps", "/v1/apps/{app}/updates", "/v1/apps/{app}/insights/updates/{groupId}/hourly");
    // and the copy the control plane serves at /v1/openapi.yaml is this file
    try (var in = PublisherApi.class.getResourceAsStream("/dev/updraft/controlplane/api/openapi.yaml")) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(yaml);
    }
  }

  @Test
  void theParserReportsWhatIsWrongWithABrokenDescription() {
    String typo = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      sumary: a typo\n      responses: {'200': {description: ok}}\n";
    String missing = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      summary: no responses\n";
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    assertThat(new OpenAPIParser().readContents(typo, null, options).getMessages()).as("so an empty list above means something")
        .anySatisfy(m -> assertThat(m).contains("sumary"));
    assertThat(new OpenAPIParser().readContents(missing, null, options).getMessages()).anySatisfy(m -> assertThat(m).contains("responses"));
  }

  @Test
  void answersTheDescriptionListsPassAndOthersAreRefused() {
    OpenApiContract c = OpenApiContract.shared();
    assertThat(c.problems("GET", "/v1/apps/demo", 200, "application/json", APP)).isEmpty();
    assertThat(c.problems("GET", "/v1/apps/demo?x=1", 404, "application/json",
        "{\"error\":{\"code\":\"app-not-found\",\"message\":\"no app demo\"}}".getBytes(StandardCharsets.UTF_8))).isEmpty();

    assertThat(c.problems("GET", "/v1/apps/demo", 418, "application/json", APP)).as("a status it does not list").isNotEmpty();
    assertThat(c.problems("GET", "/v1/apps/demo", 200, "application/json", "{\"appId\":7}".getBytes(StandardCharsets.UTF_8)))
        .as("a body of the wrong shape").isNotEmpty();
    assertThat(c.problems("GET", "/v1/apps/demo", 404, "application/json", "{\"code\":\"app-not-found\"}".getBytes(StandardCharsets.UTF_8)))
        .as("an error that is not the Error schema").isNotEmpty();
    assertThat(c.problems("GET", "/v1/apps/demo", 200, "text/html", "<p>hi</p>".getBytes(StandardCharsets.UTF_8)))
        .as("a content type it does not name").isNotEmpty();
    assertThatThrownBy(() -> c.check("GET", "/v1/apps/demo", 418, "application/json", APP))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("GET /v1/apps/demo (HTTP 418")
        .hasMessageContaining("openapi.yaml");

    assertThat(c.problems("GET", "/v1/no-such-route", 404, "application/json", null)).as("undescribed routes are not judged").isEmpty();
  }
}
