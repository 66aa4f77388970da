package dev.updraft.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/** Loopback port helpers. */
public final class Ports {
  /** The lowest port {@link #freePort} draws from. */
  static final int LOWEST = 20_000;
  /** How many ports below the ephemeral range {@link #freePort} tries before it takes one the kernel chooses. */
  private static final int TRIES = 64;

  private Ports() {}

  /**
   * A port that was free on 127.0.0.1 a moment ago, below the kernel's ephemeral range when there is room there
   * ({@code net.ipv4.ip_local_port_range}; from {@value #LOWEST} up). A server stopped and started again on the same
   * port (a Kafka node in a fault test, PostgreSQL after a crash) must find it free: a port in the ephemeral range may
   * meanwhile be the local end of any outgoing connection, even one of the clients reconnecting to it (a connection to
   * a loopback port nobody listens on can take that same port as its own and connect to itself), and then the bind
   * fails with "Address already in use". Outside that range the kernel hands the port to no connection.
   */
  public static int freePort() {
    int below = ephemeralLow();
    if (below - LOWEST >= 1_000) {
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      for (int i = 0; i < TRIES; i++) {
        int port = LOWEST + rnd.nextInt(below - LOWEST);
        if (!inUse(port)) {
          return port;
        }
      }
    }
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  /** The first port of the kernel's ephemeral range (Linux), or 0 when it cannot be read (then nothing is below it). */
  static int ephemeralLow() {
    // read as a stream: procfs reports a size of 0, and a read sized by it gets the first byte only
    try (java.io.InputStream in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      String range = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** Whether something already listens on 127.0.0.1:{@code port}. */
  public static boolean inUse(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return false;
    } catch (IOException e) {
      return true;
    }
  }
}
