package dev.updraft.testing.openapi;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.LevelResolver;
import com.atlassian.oai.validator.report.ValidationReport;
import dev.updraft.testing.Fixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The publisher API's description, {@code docs/api/openapi.yaml}, as a check on real answers: given what a
 * test sent (method and path) and what came back (status, content type, body), {@link #problems} lists
 * where the answer departs from the description: a status the operation does not list, a body that does
 * not match the schema of its status and media type, a content type it does not name. Requests are not
 * judged (tests send bad ones on purpose), and paths the description does not have (a test probing an
 * unknown route) are left alone: {@code OpenApiRoutesTest} keeps the described routes and the server's equal.
 *
 * <p>Thread-safe; {@link #shared()} loads the description once per JVM.
 */
public final class OpenApiContract {
  private static volatile OpenApiContract shared;

  /** Report keys that judge the request, or say that the path or method is not described at all. */
  private static final Set<String> NOT_OURS =
      Set.of("validation.request.path.missing", "validation.request.operation.notAllowed");

  private final OpenApiInteractionValidator validator;
  private final Set<String> checked = ConcurrentHashMap.newKeySet();

  private OpenApiContract(String yaml) {
    this.validator =
        OpenApiInteractionValidator.createForInlineApiSpecification(yaml)
            .withLevelResolver(
                LevelResolver.create()
                    .withLevel("validation.request", ValidationReport.Level.IGNORE)
                    .withDefaultLevel(ValidationReport.Level.ERROR)
                    .build())
            .build();
  }

  /** The repository's description ({@code docs/api/openapi.yaml} beside {@code fixtures/}). */
  public static Path descriptionFile() {
    return Fixtures.root().getParent().resolve("docs/api/openapi.yaml");
  }

  /** The repository's description, loaded once. */
  public static OpenApiContract shared() {
    OpenApiContract c = shared;
    if (c == null) {
      synchronized (OpenApiContract.class) {
        c = shared;
        if (c == null) {
          try {
            c = new OpenApiContract(Files.readString(descriptionFile(), StandardCharsets.UTF_8));
          } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + descriptionFile(), e);
          }
          shared = c;
        }
      }
    }
    return c;
  }

  /** A contract over another description (for tests of the contract itself). */
  public static OpenApiContract of(String yaml) {
    return new OpenApiContract(yaml);
  }

  /**
   * Where the answer departs from the description; empty when it matches or the route is not described.
   *
   * @param target the request's path, with or without query and scheme/host
   * @param contentType nullable
   * @param body nullable or empty when there is none
   */
  public List<String> problems(String method, String target, int status, String contentType, byte[] body) {
    // the server routes the path with its dot segments removed (RFC 3986), so the description is held to that one
    String path = URI.create(URI.create(target).getRawPath().replaceAll("(?i)%2e", ".")).normalize().getRawPath();
    SimpleResponse.Builder r = SimpleResponse.Builder.status(status);
    if (contentType != null) {
      r.withContentType(contentType);
    }
    if (body != null && body.length > 0) {
      r.withBody(body);
    }
    ValidationReport report = validator.validateResponse(path, Request.Method.valueOf(method.toUpperCase(Locale.ROOT)), r.build());
    List<String> out = new ArrayList<>();
    for (ValidationReport.Message m : report.getMessages()) {
      if (NOT_OURS.contains(m.getKey())) {
        return List.of(); // not a described route: nothing to hold the answer to
      }
      if (m.getLevel() == ValidationReport.Level.ERROR) {
        out.add(m.getKey() + ": " + m.getMessage() + (m.getAdditionalInfo().isEmpty() ? "" : " " + m.getAdditionalInfo()));
      }
    }
    if (out.isEmpty()) {
      checked.add(method.toUpperCase(Locale.ROOT) + " " + status);
    }
    return out;
  }

  /** Fails with every problem of the answer, naming the request and the status. */
  public void check(String method, String target, int status, String contentType, byte[] body) {
    List<String> p = problems(method, target, status, contentType, body);
    if (!p.isEmpty()) {
      String text = body == null ? "" : new String(body, StandardCharsets.UTF_8);
      throw new AssertionError(
          "the answer to " + method + " " + target + " (HTTP " + status + ", " + contentType + ") departs from docs/api/openapi.yaml:\n  "
              + String.join("\n  ", p) + "\nbody: " + (text.length() > 2000 ? text.substring(0, 2000) + "..." : text));
    }
  }

  /** How many distinct (method, status) pairs this contract found matching so far (for reports). */
  public int checkedPairs() {
    return checked.size();
  }
}
