package dev.updraft.testing;

import java.io.IOException;

/**
 * What makes a child JVM of the tests ({@link KafkaChild}, {@link S3ProxyChild}) end with its parent: a daemon thread
 * reads the standard input the parent holds open and halts the JVM when it ends, which happens when the test JVM ends
 * in any way (even SIGKILL), so no child outlives its tests.
 */
final class ParentWatch {
  private ParentWatch() {}

  static void start() {
    Thread watch =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // the parent writes nothing; reading blocks until the pipe closes
                }
              } catch (IOException e) {
                // the pipe broke: the parent is gone
              }
              Runtime.getRuntime().halt(0);
            },
            "parent-watch");
    watch.setDaemon(true);
    watch.start();
  }
}
