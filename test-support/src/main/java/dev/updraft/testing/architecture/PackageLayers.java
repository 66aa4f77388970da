package dev.updraft.testing.architecture;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.ArrayList;
import java.util.List;

/**
 * A module's package layering, declared once and checked by the build: every package under the module's root
 * package sits in exactly one layer, layers are listed from the top (the composition root) down to the leaves
 * (contracts, configuration), and a class may depend on its own layer and the layers below it only. Separately,
 * no two packages depend on each other, directly or through others (each package, subpackages included, is its
 * own node: {@code api} and {@code api.views} are two).
 *
 * <p>Declaring a layer with packages that hold no class fails (a typo, or a package moved away), and so does a
 * package under the root that no layer names (a new package must be placed). A layer's package {@code "x"} covers
 * {@code root.x} and its subpackages; {@code ""} is the root package alone.
 *
 * <pre>{@code
 * PackageLayers.of("dev.updraft.controlplane")
 *     .layer("composition root", "")
 *     .layer("http", "api", "console")
 *     .layer("contracts", "core", "spi", "config")
 *     .check();
 * }</pre>
 *
 * <p>Immutable once declared; {@link #layer} returns a new declaration.
 */
public final class PackageLayers {
  private final String root;
  private final List<Layer> layers;

  private record Layer(String name, List<String> packages) {}

  private PackageLayers(String root, List<Layer> layers) {
    this.root = root;
    this.layers = layers;
  }

  /** A declaration for the packages under {@code rootPackage}, with no layer yet. */
  public static PackageLayers of(String rootPackage) {
    return new PackageLayers(rootPackage, List.of());
  }

  /** The next layer down: {@code packages} relative to the root ({@code ""}: the root package itself). */
  public PackageLayers layer(String name, String... packages) {
    if (packages.length == 0) {
      throw new IllegalArgumentException("layer=" + name + " names no package");
    }
    List<Layer> next = new ArrayList<>(layers);
    next.add(new Layer(name, List.of(packages)));
    return new PackageLayers(root, List.copyOf(next));
  }

  /**
   * The module's main classes (its {@code target/classes}, no test class) under the root package. Classes outside
   * it are not read from the class path (the rules look at dependencies between the module's own packages only),
   * which keeps the import to the module's size.
   */
  public JavaClasses mainClasses() {
    return mainClassesUnder(root);
  }

  /** The main classes (no test class) under {@code packages} on the class path, as {@link #mainClasses()} reads them. */
  public static JavaClasses mainClassesUnder(String... packages) {
    return ArchConfiguration.withThreadLocalScope((ArchConfiguration c) -> {
      c.setResolveMissingDependenciesFromClassPath(false);
      return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(packages);
    });
  }

  /** Fails (an {@link AssertionError} listing every offending dependency) on a package cycle or a layer violation. */
  public void check() {
    JavaClasses classes = mainClasses();
    noCycles().check(classes);
    if (!layers.isEmpty()) {
      order().check(classes);
    }
  }

  /** Both rules on {@code classes}, the violations of each together (for the rules' own tests). */
  public EvaluationResult evaluate(JavaClasses classes) {
    EvaluationResult result = noCycles().evaluate(classes);
    if (!layers.isEmpty()) {
      result.add(order().evaluate(classes));
    }
    return result;
  }

  /** No package under the root depends on itself through other packages. */
  public ArchRule noCycles() {
    return slices().assignedFrom(new EachPackage(root)).should().beFreeOfCycles()
        .as("packages under " + root + " are free of cycles");
  }

  /** Every class depends on its own layer and those declared after it only, and sits in a declared layer. */
  public ArchRule order() {
    if (layers.isEmpty()) {
      throw new IllegalStateException("root=" + root + " declares no layer");
    }
    LayeredArchitecture arch = layeredArchitecture().consideringOnlyDependenciesInLayers()
        .ensureAllClassesAreContainedInArchitectureIgnoring(
            DescribedPredicate.describe("outside " + root, (JavaClass c) -> !inRoot(c.getPackageName())));
    for (Layer l : layers) {
      arch = arch.layer(l.name()).definedBy(identifiers(l));
    }
    for (int i = 0; i < layers.size(); i++) {
      String name = layers.get(i).name();
      if (i == layers.size() - 1) {
        arch = arch.whereLayer(name).mayNotAccessAnyLayer();
      } else {
        String[] below = layers.subList(i + 1, layers.size()).stream().map(Layer::name).toArray(String[]::new);
        arch = arch.whereLayer(name).mayOnlyAccessLayers(below);
      }
    }
    return arch.as("packages under " + root + " depend only downwards in the order " + describe());
  }

  private boolean inRoot(String pkg) {
    return pkg.equals(root) || pkg.startsWith(root + ".");
  }

  private String[] identifiers(Layer l) {
    return l.packages().stream().map(p -> p.isEmpty() ? root : root + "." + p + "..").toArray(String[]::new);
  }

  private String describe() {
    StringBuilder b = new StringBuilder();
    for (Layer l : layers) {
      b.append(b.isEmpty() ? "" : " -> ").append(l.name()).append(" ").append(l.packages());
    }
    return b.toString();
  }

  /** Each package under the root is a slice of its own; classes elsewhere are not considered. */
  private static final class EachPackage implements SliceAssignment {
    private final String root;

    EachPackage(String root) {
      this.root = root;
    }

    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      String p = c.getPackageName();
      return p.equals(root) || p.startsWith(root + ".") ? SliceIdentifier.of(p) : SliceIdentifier.ignore();
    }

    @Override
    public String getDescription() {
      return "each package under " + root;
    }
  }
}
