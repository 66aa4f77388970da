package dev.updraft.edge;

import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * JMH benchmark of the address bucket every device request's check-in carries ({@link AddressBuckets#of}, the
 * TCP peer's address, no X-Forwarded-For). Not a test: never run by {@code verify}. Run it as {@code
 * ResolveBenchmark} is run (docs/benchmarks/edge-resolve.md), with this class's name.
 *
 * <ul>
 *   <li>{@code networks=1}: every request from one /24 (a benchmark's loopback, or one office's NAT);
 *   <li>{@code networks=256}: 4,096 addresses in 256 /24s, as many as a thread remembers a quarter of;
 *   <li>{@code networks=65536}: 4,096 addresses in as many /24s, none seen twice in a row: the cost of a miss.
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class AddressBucketsBenchmark {
  private static final int ADDRESSES = 4096;

  @Param({"1", "256", "65536"})
  public int networks;

  private AddressBuckets buckets;
  private SocketAddress[] peers;
  private int next;

  @Setup
  public void setUp() {
    buckets = new AddressBuckets("benchmark-key-0123456789".getBytes(StandardCharsets.US_ASCII), false);
    ThreadLocalRandom r = ThreadLocalRandom.current();
    peers = new SocketAddress[ADDRESSES];
    for (int i = 0; i < ADDRESSES; i++) {
      int net = networks >= ADDRESSES ? r.nextInt(networks) * 7919 % networks : r.nextInt(networks);
      peers[i] = SocketAddress.inetSocketAddress(40000, "10." + (net >> 8) + "." + (net & 0xFF) + "." + (1 + r.nextInt(254)));
    }
  }

  @Benchmark
  public String bucketOfPeer() {
    SocketAddress p = peers[next++ & (ADDRESSES - 1)];
    return buckets.of(p, null);
  }

  /** Runs this benchmark: {@code java -cp … dev.updraft.edge.AddressBucketsBenchmark [result.json]}. */
  public static void main(String[] args) throws RunnerException {
    OptionsBuilder o = new OptionsBuilder();
    o.include(AddressBucketsBenchmark.class.getName() + ".*");
    if (args.length > 0) {
      o.resultFormat(org.openjdk.jmh.results.format.ResultFormatType.JSON).result(args[0]);
    }
    new Runner(o.build()).run();
  }
}
