package dev.updraft.edge.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutated OTLP bodies (bytes flipped, cut, repeated, spliced; a fresh seed each run, printed) either decode or are
 * refused with an {@link OtlpSyntaxException}: no other exception (which the route would answer 500), and never more
 * exceptions than the cap.
 */
class OtlpDecodeFuzzTest {
  static final String JSON_LOGS = "{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"expo.update.id\",\"value\":{\"stringValue\":\"u\"}}]},"
      + "\"scopeLogs\":[{\"logRecords\":[{\"timeUnixNano\":\"1796032800123000000\",\"severityNumber\":21,\"body\":{\"stringValue\":\"b\"},"
      + "\"attributes\":[{\"key\":\"exception.type\",\"value\":{\"stringValue\":\"E\"}},{\"key\":\"n\",\"value\":{\"intValue\":\"3\"}}]}]}]}]}";
  static final String JSON_TRACES = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"spans\":[{\"name\":\"s\",\"events\":["
      + "{\"timeUnixNano\":5,\"name\":\"exception\",\"attributes\":[{\"key\":\"exception.message\",\"value\":{\"stringValue\":\"m\"}}]}]}]}]}]}";
  /** A logs request: resource with one attribute, one log record with time, severity, body and exception.type. */
  static final byte[] PROTO_LOGS = HexFormat.of().parseHex(
      "0a480a170a150a0e6578706f2e7570646174652e696412030a0175122d122b09c01448e050caec1810152a030a016232190a0e65786365"
          + "7074696f6e2e7479706512070a055479706545");

  @Test
  void mutatedBodiesDecodeOrAreRefusedWithASyntaxErrorOnly() {
    long seed = new SplittableRandom().nextLong();
    System.out.println("otlp decode fuzz seed " + seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    byte[][] seeds = {JSON_LOGS.getBytes(StandardCharsets.UTF_8), JSON_TRACES.getBytes(StandardCharsets.UTF_8), PROTO_LOGS};
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      int which = rnd.nextInt(seeds.length);
      byte[] body = mutate(seeds[which], rnd);
      boolean json = which < 2;
      boolean logs = which != 1;
      try {
        Decoded d = json ? (logs ? OtlpJson.logs(body, 3) : OtlpJson.traces(body, 3)) : (rnd.nextBoolean() ? OtlpProto.logs(body, 3) : OtlpProto.traces(body, 3));
        assertThat(d.found.size()).isLessThanOrEqualTo(3);
      } catch (OtlpSyntaxException e) {
        refused++;
        assertThat(e.getMessage()).isNotBlank();
      } catch (RuntimeException | StackOverflowError e) {
        throw new AssertionError("seed " + seed + ", input " + i + " (" + HexFormat.of().formatHex(body) + "): " + e, e);
      }
    }
    assertThat(refused).as("mutations refused").isPositive();
  }

  @Test
  void theProtobufSeedDecodesToItsException() throws OtlpSyntaxException {
    Decoded d = OtlpProto.logs(PROTO_LOGS, 3);
    assertThat(d.found).hasSize(1);
    assertThat(d.found.get(0).type()).isEqualTo("TypeE");
    assertThat(d.found.get(0).resource()).containsEntry("expo.update.id", "u");
  }

  static byte[] mutate(byte[] in, SplittableRandom rnd) {
    byte[] b = in.clone();
    int kind = rnd.nextInt(5);
    switch (kind) {
      case 0 -> {
        for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
          b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
        }
      }
      case 1 -> b = Arrays.copyOf(b, rnd.nextInt(b.length));
      case 2 -> {
        int at = rnd.nextInt(b.length);
        byte[] out = new byte[b.length * 2 - at];
        System.arraycopy(b, 0, out, 0, b.length);
        System.arraycopy(b, at, out, b.length, b.length - at);
        b = out;
      }
      case 3 -> {
        b = new byte[rnd.nextInt(64)];
        for (int k = 0; k < b.length; k++) {
          b[k] = (byte) rnd.nextInt(256);
        }
      }
      default -> {
        int at = rnd.nextInt(b.length);
        b[at] = (byte) (b[at] ^ (1 << rnd.nextInt(8)));
      }
    }
    return b;
  }
}
