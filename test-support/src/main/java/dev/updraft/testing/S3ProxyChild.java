package dev.updraft.testing;

/**
 * The main class of {@link S3ProxyServer}'s child JVM: runs S3Proxy's own {@code Main} and exits as soon
 * as its standard input ends, which happens when the test JVM that started it ends in any way (even
 * SIGKILL), so no S3Proxy outlives its tests.
 */
public final class S3ProxyChild {
  private S3ProxyChild() {}

  public static void main(String[] args) throws Exception {
    ParentWatch.start();
    Class.forName("org.gaul.s3proxy.Main").getMethod("main", String[].class).invoke(null, (Object) args);
  }
}
