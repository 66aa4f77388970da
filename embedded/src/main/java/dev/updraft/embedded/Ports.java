package dev.updraft.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Loopback port helpers. */
public final class Ports {
  private Ports() {}

  /** A port that was free on 127.0.0.1 a moment ago. */
  public static int freePort() {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
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
