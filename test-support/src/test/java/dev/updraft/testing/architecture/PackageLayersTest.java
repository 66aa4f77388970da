package dev.updraft.testing.architecture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The layering rules themselves: deliberate violations (the fixture packages under this one) must be reported, and a
 * structure that keeps the rules must pass, so the modules' architecture tests can fail.
 */
class PackageLayersTest {
  private static final String FIXTURE = "dev.updraft.testing.architecture.fixture.";

  private static JavaClasses classes(String fixture) {
    return new ClassFileImporter().importPackages(FIXTURE + fixture);
  }

  @Test
  void twoPackagesThatImportEachOtherAreACycle() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "cycle");
    EvaluationResult result = rules.noCycles().evaluate(classes("cycle"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("cycle.a.A").contains("cycle.b.B");
    assertThatThrownBy(() -> rules.noCycles().check(classes("cycle"))).isInstanceOf(AssertionError.class)
        .hasMessageContaining("free of cycles");
  }

  @Test
  void theRootPackageAndItsSubpackageImportingEachOtherAreACycle() {
    EvaluationResult result = PackageLayers.of(FIXTURE + "rootcycle").noCycles().evaluate(classes("rootcycle"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("rootcycle.Root").contains("rootcycle.sub.Sub");
  }

  @Test
  void aLowerLayerImportingAnUpperOneIsReportedWithoutAnyCycle() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "inverted").layer("upper", "top").layer("lower", "bottom");
    assertThat(rules.noCycles().evaluate(classes("inverted")).hasViolation()).as("no cycle here").isFalse();
    EvaluationResult result = rules.order().evaluate(classes("inverted"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("inverted.bottom.Upward").contains("inverted.top.Top");
  }

  @Test
  void anUpperLayerUsingALowerOneAsDeclaredPasses() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "clean").layer("upper", "top").layer("lower", "bottom");
    assertThat(rules.evaluate(classes("clean")).hasViolation()).isFalse();
  }

  @Test
  void theSameStructureDeclaredUpsideDownFails() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "clean").layer("upper", "bottom").layer("lower", "top");
    EvaluationResult result = rules.evaluate(classes("clean"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("clean.top.Caller").contains("clean.bottom.Leaf");
  }

  @Test
  void aPackageNoLayerNamesFails() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "clean").layer("upper", "top");
    EvaluationResult result = rules.order().evaluate(classes("clean"));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains("clean.bottom.Leaf");
  }

  @Test
  void aLayerWhosePackagesHoldNoClassFails() {
    PackageLayers rules = PackageLayers.of(FIXTURE + "clean").layer("upper", "top").layer("lower", "bottom")
        .layer("typo", "botom");
    assertThat(rules.order().evaluate(classes("clean")).hasViolation()).isTrue();
  }
}
