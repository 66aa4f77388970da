package dev.updraft.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class PortsTest {
  @Test
  void freePortsAreBelowTheEphemeralRangeSoThatAServerRestartedOnOneFindsItFree() throws Exception {
    int low = Ports.ephemeralLow();
    // Linux with the default range (32768-60999) everywhere this project runs; elsewhere there is no range to avoid
    assumeTrue(low - Ports.LOWEST >= 1_000 || System.getenv("CI") != null, "no room below the ephemeral range here");
    for (int i = 0; i < 20; i++) {
      int port = Ports.freePort();
      assertThat(port).as("a port outside the kernel's ephemeral range (from %d)", low).isBetween(Ports.LOWEST, low - 1);
      try (ServerSocket s = new ServerSocket()) {
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertThat(Ports.inUse(port)).as("a port something listens on").isTrue();
      }
    }
  }
}
