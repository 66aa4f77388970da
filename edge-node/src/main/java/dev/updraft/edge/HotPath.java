package dev.updraft.edge;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * Whether the JIT has compiled the manifest route's hot path with its optimising compiler: the warm-up's
 * condition for ending ({@link WarmupCurve}). Flight recordings of a restarted edge (docs/benchmarks/archive/cold-start.md,
 * runs 9 and 10) showed the warm-up ending on the C1 plateau, the latency flat and the compilers idle while
 * the invocation counters still climbed towards C2, and these methods then compiled by C2 (0.3–1.6 s each on
 * two cores) under the first real traffic. Each is too large to be inlined into its caller, so each gets a
 * compiled body of its own (seen in a steady edge's code list; Netty's {@code encodeFullHttpMessage}, C2-compiled
 * on its own in one recording, stayed at C1 in another, inlined where it is called, so it is not one of them):
 * a name that never reaches the top tier only makes the warm-up run to its bound.
 *
 * <p>Read from the JVM's code list (the {@code Compiler.codelist} diagnostic command, one line per compiled
 * method: compile id, tier, state, method); on a JVM without it, or running without a compiler, nothing is
 * known and the latency alone decides.
 */
final class HotPath {
  /** The methods every device request runs whose top-tier code arrived last in the recordings. */
  static final List<String> METHODS = List.of(
      "dev.updraft.edge.DeviceRoute.handle",
      "dev.updraft.edge.DeviceRoute.answer",
      "dev.updraft.edge.checkin.KafkaSink.send",
      "io.netty.handler.codec.http.HttpObjectDecoder.decode");

  /** The state of a compiled method that runs (the others are being replaced or unloaded). */
  private static final String IN_USE = "0";

  private HotPath() {}

  /**
   * The methods of {@code methods} that have no in-use compiled body at {@code topTier} in {@code codelist}.
   *
   * @param codelist the output of {@code Compiler.codelist}: lines of {@code id tier state class.method(signature) [...]}
   */
  static List<String> pending(String codelist, int topTier, List<String> methods) {
    List<String> out = new ArrayList<>(methods);
    String tier = Integer.toString(topTier);
    int from = 0;
    while (from < codelist.length() && !out.isEmpty()) {
      int end = codelist.indexOf('\n', from);
      if (end < 0) {
        end = codelist.length();
      }
      String[] f = codelist.substring(from, end).trim().split(" ", 5);
      from = end + 1;
      if (f.length >= 4 && f[1].equals(tier) && f[2].equals(IN_USE)) {
        int paren = f[3].indexOf('(');
        out.remove(paren < 0 ? f[3] : f[3].substring(0, paren));
      }
    }
    return out;
  }

  /**
   * The hot path's methods this JVM has not compiled at its top tier yet; null when it cannot tell (no
   * diagnostic command, no compiler). Takes some milliseconds: call it off the event loops.
   */
  static List<String> pending() {
    int top = topTier();
    if (top < 1) {
      return null;
    }
    try {
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist", new Object[0], new String[0]);
      return out instanceof String s ? pending(s, top, METHODS) : null;
    } catch (JMException | RuntimeException e) {
      return null;
    }
  }

  /** The highest tier this JVM compiles at (4: C2 or a JVMCI compiler; 1 to 3: C1 only), 0 when it interprets only. */
  static int topTier() {
    try {
      com.sun.management.HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
      if (vm == null || !Boolean.parseBoolean(vm.getVMOption("UseCompiler").getValue())) {
        return 0;
      }
      if (!Boolean.parseBoolean(vm.getVMOption("TieredCompilation").getValue())) {
        return 4;
      }
      return Math.min(4, Integer.parseInt(vm.getVMOption("TieredStopAtLevel").getValue()));
    } catch (RuntimeException e) {
      return 0;
    }
  }
}
