package dev.updraft.systemtests.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.updraft.testing.architecture.PackageLayers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Between modules, on every module's main classes at once (the launcher brings them all onto this classpath): the
 * three services never import each other, the modules below them import none of ours above them, and the modules
 * without a layering test of their own have no package cycle. Each service's layering inside itself is its own
 * {@code LayeringTest}; the Maven enforcer also bans the service modules as each other's dependencies.
 */
class ModuleBoundariesTest {
  private static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main = PackageLayers.mainClassesUnder("dev.updraft");
  }

  @Test
  void edgeControlPlaneAndIngesterNeverImportEachOther() {
    noClasses().that().resideInAPackage("dev.updraft.edge..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.updraft.controlplane..", "dev.updraft.ingester..").check(main);
    noClasses().that().resideInAPackage("dev.updraft.controlplane..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.updraft.edge..", "dev.updraft.ingester..").check(main);
    noClasses().that().resideInAPackage("dev.updraft.ingester..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.updraft.edge..", "dev.updraft.controlplane..").check(main);
  }

  @Test
  void theEventSchemaImportsNoneOfOurModules() {
    noClasses().that().resideInAPackage("dev.updraft.events..")
        .should().dependOnClassesThat(resideInAPackage("dev.updraft..").and(not(resideInAPackage("dev.updraft.events.."))))
        .check(main);
  }

  @Test
  void commonEmbeddedAndTheDatabaseSchemaImportNoServiceNorTool() {
    noClasses().that().resideInAnyPackage("dev.updraft.common..", "dev.updraft.embedded..", "dev.updraft.dbschema..")
        .should().dependOnClassesThat(resideInAnyPackage(
            "dev.updraft.controlplane..", "dev.updraft.edge..", "dev.updraft.ingester..", "dev.updraft.cli..",
            "dev.updraft.launcher..", "dev.updraft.load..", "dev.updraft.testing.."))
        .check(main);
  }

  @Test
  void theFoundationModulesHaveNoPackageCycle() {
    for (String root : new String[] {"dev.updraft.common", "dev.updraft.events", "dev.updraft.embedded", "dev.updraft.dbschema"}) {
      PackageLayers.of(root).noCycles().check(main);
    }
  }
}
