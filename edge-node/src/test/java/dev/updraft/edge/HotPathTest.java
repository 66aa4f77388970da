package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which of the hot path's methods a JVM's code list shows compiled at the top tier. */
class HotPathTest {
  private static final List<String> TWO = List.of("dev.updraft.edge.ManifestHandler.answer", "io.netty.handler.codec.http.HttpObjectDecoder.decode");

  @Test
  void aMethodCountsOnceItHasInUseCodeOfTheTopTier() {
    // lines as `jcmd <pid> Compiler.codelist` prints them: compile id, tier, state (0: in use), method
    String codelist = """
        17 0 0 java.lang.System.arraycopy(Ljava/lang/Object;ILjava/lang/Object;II)V [0x1, 0x2 - 0x3]
        812 3 0 dev.updraft.edge.ManifestHandler.answer(Lio/vertx/core/http/HttpServerRequest;J)V [0x1, 0x2 - 0x3]
        1204 4 0 io.netty.handler.codec.http.HttpObjectDecoder.decode(Lio/netty/channel/ChannelHandlerContext;)V [0x1, 0x2 - 0x3]
        """;
    assertThat(HotPath.pending(codelist, 4, TWO)).as("C1's profiled code of answer is not enough").containsExactly(TWO.get(0));
    assertThat(HotPath.pending(codelist + "1390 4 0 dev.updraft.edge.ManifestHandler.answer(J)V [0x1]\n", 4, TWO)).isEmpty();
  }

  @Test
  void codeBeingReplacedDoesNotCount() {
    // state 2: not entrant (deoptimised, on its way out)
    String codelist = "1204 4 2 io.netty.handler.codec.http.HttpObjectDecoder.decode(Lio/netty/channel/ChannelHandlerContext;)V [0x1]";
    assertThat(HotPath.pending(codelist, 4, TWO)).containsExactlyElementsOf(TWO);
  }

  @Test
  void aJvmThatStopsAtC1CountsItsTopTier() {
    String codelist = "812 1 0 dev.updraft.edge.ManifestHandler.answer(J)V [0x1]\n900 1 0 io.netty.handler.codec.http.HttpObjectDecoder.decode()V [0x1]";
    assertThat(HotPath.pending(codelist, 1, TWO)).isEmpty();
    assertThat(HotPath.pending(codelist, 4, TWO)).hasSize(2);
  }

  @Test
  void everyNamedMethodExistsSoARenameCannotSilentlyKeepTheWarmUpRunning() throws Exception {
    for (String m : HotPath.METHODS) {
      int dot = m.lastIndexOf('.');
      Class<?> type = Class.forName(m.substring(0, dot));
      String name = m.substring(dot + 1);
      assertThat(Arrays.stream(type.getDeclaredMethods()).map(Method::getName)).as(m).contains(name);
    }
  }

  @Test
  void thisJvmTellsWhatItHasCompiled() {
    // the build's JVM (HotSpot) compiles with C2 and answers the code list: a null here would mean the
    // warm-up cannot see the hot path's state and ends on the latency alone
    assertThat(HotPath.topTier()).isEqualTo(4);
    assertThat(HotPath.pending()).isNotNull().isSubsetOf(HotPath.METHODS);
  }
}
