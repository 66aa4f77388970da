package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Reading the JIT's compile queue ({@code jcmd PID Compiler.queue}, as a JDK 17 prints it) for the warm-up's last step. */
class SettleTest {
  @Test
  void countsTheCompilesRunningAndQueued() {
    String busy = """
        Current compiles:\s
        C2 CompilerThread0  11729  s!   4       jdk.internal.loader.URLClassPath::getLoader (194 bytes)
        C1 CompilerThread0  12118       2       com.sun.tools.javac.comp.Modules::lambda$setupAllModules$5 (37 bytes)

        C1 compile queue:
        Empty

        C2 compile queue:
        6868       4       java.util.Collections$UnmodifiableMap::containsKey (11 bytes)
        8071       4       jdk.internal.jimage.BasicImageReader::getLocation (6 bytes)
        8238       4       java.util.ImmutableCollections$ListN::get (7 bytes)
        """;
    assertThat(Settle.compiles(busy)).as("two running, three queued").isEqualTo(5);
  }

  @Test
  void anIdleJitHasNone() {
    String idle = "Current compiles: \n\nC1 compile queue:\nEmpty\n\nC2 compile queue:\nEmpty\n\n";
    assertThat(Settle.compiles(idle)).isZero();
  }

  @Test
  void thisJvmTellsItsQueue() {
    assertThat(Settle.compiles()).as("the diagnostic command answers on the JDKs the edge runs on").isNotNull();
  }
}
