package dev.updraft.systemtests.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What ships is known: the build writes a CycloneDX SBOM of the image's contents that names every jar the
 * image carries (and nothing only tests use), and the Dockerfile pins its base images by digest.
 */
class SupplyChainTest {

  @Test
  void theImagesSbomNamesEveryJarItShipsAndNoTestOnlyOne() throws Exception {
    Path launcher = RepoFiles.root().resolve("launcher/target");
    JsonNode bom = new ObjectMapper().readTree(launcher.resolve("updraft-sbom.json").toFile());
    assertThat(bom.path("bomFormat").asText()).isEqualTo("CycloneDX");
    assertThat(bom.path("metadata").path("component").path("name").asText()).isEqualTo("launcher");
    Set<String> listed = new TreeSet<>();
    for (JsonNode c : bom.path("components")) {
      listed.add(c.path("name").asText() + "-" + c.path("version").asText());
      assertThat(c.path("purl").asText()).as("every component has a package URL").startsWith("pkg:maven/");
    }
    Set<String> shipped = new TreeSet<>();
    try (Stream<Path> jars = Files.list(launcher.resolve("lib"))) {
      jars.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).forEach(n -> shipped.add(n.substring(0, n.length() - 4)));
    }
    assertThat(shipped).as("the image's lib/ (the dependency plugin's copy)").hasSizeGreaterThan(100);
    // a jar's file name is artifactId-version[-classifier]; the SBOM lists name-version
    List<String> missing = shipped.stream().filter(jar -> listed.stream().noneMatch(jar::startsWith)).toList();
    assertThat(missing).as("jars in the image that the SBOM does not name").isEmpty();
    assertThat(listed).as("test-only libraries are not in the image's SBOM")
        .noneMatch(n -> n.startsWith("junit-jupiter") || n.startsWith("assertj-core") || n.startsWith("selenium") || n.startsWith("archunit"));
    for (String server : List.of("control-plane", "edge-node", "ingester")) {
      assertThat(RepoFiles.root().resolve(server + "/target/" + server + "-sbom.json")).as("the %s module's SBOM", server).exists();
    }
  }

  @Test
  void theDockerfilePinsEveryBaseImageByDigestAndShipsTheSbom() throws Exception {
    String dockerfile = Files.readString(RepoFiles.root().resolve("Dockerfile"));
    Matcher from = Pattern.compile("(?m)^FROM\\s+(\\S+)").matcher(dockerfile);
    int images = 0;
    while (from.find()) {
      assertThat(from.group(1)).as("FROM line").matches("[a-z0-9./-]+:[A-Za-z0-9._-]+@sha256:[0-9a-f]{64}");
      images++;
    }
    assertThat(images).isEqualTo(2);
    assertThat(dockerfile).contains("COPY --from=build /src/launcher/target/updraft-sbom.json /opt/updraft/sbom.json");
  }
}
