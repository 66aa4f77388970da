package dev.updraft.systemtests.security;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

/**
 * Secrets are compared in constant time: the classes that check tokens ({@code Auth}, {@code Tokens})
 * compare digests with {@link MessageDigest#isEqual} and never with {@code String.equals},
 * {@code Arrays.equals} or {@code compareTo}, which stop at the first difference. (A timing test would be
 * a latency assertion; this checks the code that decides instead.)
 */
class ConstantTimeComparisonTest {
  static final JavaClasses CLASSES =
      new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.updraft.controlplane");

  @Test
  void tokenChecksCompareDigestsInConstantTime() {
    classes().that().haveFullyQualifiedName("dev.updraft.controlplane.api.Auth")
        .or().haveFullyQualifiedName("dev.updraft.controlplane.commands.Tokens")
        .should().callMethod(MessageDigest.class, "isEqual", byte[].class, byte[].class)
        .check(CLASSES);
    noClasses().that().haveFullyQualifiedName("dev.updraft.controlplane.api.Auth")
        .or().haveFullyQualifiedName("dev.updraft.controlplane.commands.Tokens")
        .should().callMethod(String.class, "equals", Object.class)
        .orShould().callMethod(String.class, "contentEquals", CharSequence.class)
        .orShould().callMethod(String.class, "compareTo", String.class)
        .orShould().callMethod(java.util.Arrays.class, "equals", byte[].class, byte[].class)
        .check(CLASSES);
  }
}
