package dev.updraft.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * S3Proxy (the {@code org.gaul:s3proxy} jar from Maven Central) on its {@code filesystem-nio2} backend,
 * in a child JVM with a classpath of its own (its Jetty, jclouds and Guava never meet the tests'), with
 * SigV4 authentication and one random access key. The child watches its standard input and exits when
 * this JVM goes away, however it ends; {@link #close()} stops it at once.
 */
final class S3ProxyServer implements S3Server {
  private static final String REGION = "us-east-1";

  private final Process process;
  private final Path dir;
  private final int port;
  private final String accessKey = "updraft-test-" + UUID.randomUUID().toString().substring(0, 8);
  private final String secretKey = UUID.randomUUID().toString();

  S3ProxyServer() {
    try {
      dir = Files.createTempDirectory("updraft-test-s3");
      Files.createDirectories(dir.resolve("data"));
      port = freePort();
      Properties p = new Properties();
      p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
      p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
      p.setProperty("s3proxy.identity", accessKey);
      p.setProperty("s3proxy.credential", secretKey);
      p.setProperty("jclouds.provider", "filesystem-nio2");
      p.setProperty("jclouds.filesystem.basedir", dir.resolve("data").toString());
      p.setProperty("jclouds.regions", REGION);
      Path conf = dir.resolve("s3proxy.conf");
      try (var out = Files.newBufferedWriter(conf, StandardCharsets.UTF_8)) {
        p.store(out, "S3Proxy for the Updraft tests");
      }
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener"));
      cmd.addAll(List.of("-cp", jar() + java.io.File.pathSeparator + ownCodeSource(), S3ProxyChild.class.getName()));
      cmd.addAll(List.of("--properties", conf.toString()));
      Path log = dir.resolve("s3proxy.log");
      process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      awaitListening(log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start S3Proxy: " + e.getMessage(), e);
    }
  }

  /** The S3Proxy jar test-support's build copied (see its pom.xml). */
  private static Path jar() throws IOException {
    Properties p = new Properties();
    try (InputStream in = S3ProxyServer.class.getResourceAsStream("s3proxy.properties")) {
      if (in == null) {
        throw new IOException("s3proxy.properties missing from test-support: build it with Maven (./mvnw), which copies the S3Proxy jar");
      }
      p.load(in);
    }
    Path jar = Path.of(p.getProperty("jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IOException("the S3Proxy jar " + jar + " is missing: build test-support again (./mvnw -pl test-support generate-resources)");
    }
    return jar;
  }

  private static String ownCodeSource() throws IOException {
    try {
      return Path.of(S3ProxyChild.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IOException("cannot locate test-support's classes", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private void awaitListening(Path log) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("S3Proxy exited with " + process.exitValue() + " before listening; its log:\n" + Files.readString(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException e) {
        sleep(100);
      }
    }
    process.destroyForcibly();
    throw new IOException("S3Proxy did not listen on port " + port + " within 90 s; its log:\n" + Files.readString(log));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  @Override
  public String region() {
    return REGION;
  }

  @Override
  public String accessKey() {
    return accessKey;
  }

  @Override
  public String secretKey() {
    return secretKey;
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("could not delete " + dir + ": " + e);
    }
  }
}
