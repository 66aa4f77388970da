package dev.updraft.testing;

import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension giving each test class an {@link Infra}: real Kafka and PostgreSQL, shared by the
 * whole test JVM, with a topic prefix and a database of the class's own; and, to a class that asks for
 * an {@link S3Bucket} parameter, a bucket of its own on a real S3 API server. The servers start on first
 * use and stop when the test plan ends.
 */
public final class RealInfrastructure implements BeforeAllCallback, ParameterResolver {
  /** System property (or env {@code UPDRAFT_TEST_INFRA}) choosing the provider. */
  public static final String PROVIDER_PROPERTY = "updraft.test.infra";

  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RealInfrastructure.class);
  private static final AtomicInteger CLASS_COUNTER = new AtomicInteger();

  /** The shared provider, started once per JVM; closed by JUnit at the end of the test plan. */
  private static Provider provider(ExtensionContext context) {
    ExtensionContext.Store root = context.getRoot().getStore(NS);
    return root.getOrComputeIfAbsent("provider", k -> startProvider(), Provider.class);
  }

  private static Provider startProvider() {
    String chosen = System.getProperty(PROVIDER_PROPERTY, System.getenv().getOrDefault("UPDRAFT_TEST_INFRA", "embedded"));
    switch (chosen.toLowerCase(Locale.ROOT)) {
      case "embedded":
        return new EmbeddedProvider();
      case "testcontainers":
        Assumptions.assumeTrue(
            ContainersProvider.dockerAvailable(), "no Docker engine: the testcontainers provider is skipped");
        return new ContainersProvider();
      default:
        throw new IllegalArgumentException(
            PROVIDER_PROPERTY + " must be embedded or testcontainers: " + PROVIDER_PROPERTY + "=" + chosen);
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    Provider p = provider(context);
    String simple = context.getRequiredTestClass().getSimpleName().toLowerCase(Locale.ROOT);
    int n = CLASS_COUNTER.incrementAndGet();
    String name = (simple.replaceAll("[^a-z0-9]", "") + "_" + n);
    if (name.length() > 50) {
      name = name.substring(name.length() - 50);
    }
    name = "t_" + name;
    p.createDatabase(name);
    Infra infra =
        new Infra(p.kafkaBootstrap(), name + ".", p.pgHost(), p.pgPort(), name, p.pgUser(), p.pgPassword());
    context.getStore(NS).put("infra", infra);
    context.getStore(NS).put("name", name);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    return type == Infra.class || type == S3Bucket.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    if (parameterContext.getParameter().getType() == S3Bucket.class) {
      return bucket(extensionContext);
    }
    Infra infra = extensionContext.getStore(NS).get("infra", Infra.class);
    if (infra == null) {
      throw new IllegalStateException("Infra requested outside a class using RealInfrastructure");
    }
    return infra;
  }

  /** The class's bucket, made on first use: named like its database, with dashes ({@code t-publishit-3}). */
  private static S3Bucket bucket(ExtensionContext context) {
    ExtensionContext.Store store = context.getStore(NS);
    String name = store.get("name", String.class);
    if (name == null) {
      throw new IllegalStateException("S3Bucket requested outside a class using RealInfrastructure");
    }
    Provider p = provider(context);
    return store.getOrComputeIfAbsent("bucket", k -> S3Bucket.create(p.s3(), name.replace('_', '-')), S3Bucket.class);
  }
}
