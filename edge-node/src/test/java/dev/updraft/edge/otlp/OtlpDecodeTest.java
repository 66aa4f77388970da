package dev.updraft.edge.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The OTLP decoders find exceptions in log records and span events, with the resource's attributes, in JSON and in
 * protobuf (bytes written here field by field as opentelemetry-proto numbers them), and refuse broken bodies naming
 * the problem.
 */
class OtlpDecodeTest {
  private static final String RESOURCE = "{\"attributes\":[{\"key\":\"expo.update.id\",\"value\":{\"stringValue\":\"u-1\"}},"
      + "{\"key\":\"os.name\",\"value\":{\"stringValue\":\"iOS\"}},{\"key\":\"service.name\",\"value\":{\"stringValue\":\"app\"}}]}";

  @Test
  void aJsonLogRecordWithExceptionAttributesIsFoundAndOneWithoutIsNot() throws Exception {
    String body = "{\"resourceLogs\":[{\"resource\":" + RESOURCE + ",\"scopeLogs\":[{\"logRecords\":["
        + "{\"timeUnixNano\":\"1796032800123000000\",\"severityNumber\":17,\"body\":{\"stringValue\":\"boom\"},\"attributes\":["
        + "{\"key\":\"exception.type\",\"value\":{\"stringValue\":\"TypeError\"}},"
        + "{\"key\":\"exception.stacktrace\",\"value\":{\"stringValue\":\"TypeError: x\\n    at Login (index.bundle:1:2)\"}}]},"
        + "{\"severityNumber\":9,\"body\":{\"stringValue\":\"just info\"}}]}]}]}";

    Decoded d = OtlpJson.logs(body.getBytes(StandardCharsets.UTF_8), 10);

    assertThat(d.items).isEqualTo(2);
    assertThat(d.found).hasSize(1);
    Found f = d.found.get(0);
    assertThat(f.type()).isEqualTo("TypeError");
    assertThat(f.message()).isEqualTo("boom");
    assertThat(f.stacktrace()).contains("at Login");
    assertThat(f.timeNanos()).isEqualTo(1796032800123000000L);
    assertThat(f.resource()).containsEntry("expo.update.id", "u-1").containsEntry("os.name", "iOS").doesNotContainKey("service.name");
  }

  @Test
  void jsonSpanEventsBeyondTheCapAreCountedAsLeftOver() throws Exception {
    String ev = "{\"name\":\"exception\",\"attributes\":[{\"key\":\"exception.type\",\"value\":{\"stringValue\":\"E\"}}]}";
    String body = "{\"resourceSpans\":[{\"resource\":" + RESOURCE + ",\"scopeSpans\":[{\"spans\":[{\"name\":\"s\",\"events\":["
        + ev + "," + ev + "," + ev + "]}]}]}]}";

    Decoded d = OtlpJson.traces(body.getBytes(StandardCharsets.UTF_8), 2);

    assertThat(d.found).hasSize(2);
    assertThat(d.leftOver).isEqualTo(1);
    assertThat(d.found.get(0).source()).isEqualTo("span");
  }

  @Test
  void brokenJsonIsRefusedNamingTheProblem() {
    assertThatThrownBy(() -> OtlpJson.logs("{\"resourceLogs\":".getBytes(StandardCharsets.UTF_8), 10))
        .isInstanceOf(OtlpSyntaxException.class).hasMessageContaining("not JSON");
    assertThatThrownBy(() -> OtlpJson.logs("{\"resourceLogs\":{}}".getBytes(StandardCharsets.UTF_8), 10))
        .isInstanceOf(OtlpSyntaxException.class).hasMessageContaining("'resourceLogs' must be an array");
    assertThatThrownBy(() -> OtlpJson.logs("[]".getBytes(StandardCharsets.UTF_8), 10))
        .isInstanceOf(OtlpSyntaxException.class).hasMessageContaining("not a JSON object");
  }

  @Test
  void aProtobufLogRecordAndSpanEventAreFoundWithTheResource() throws Exception {
    byte[] resource = msg(kv("expo.update.id", "u-2"), kv("expo.client.id", "C-1"));
    byte[] log = concat(fixed64(1, 1796032800123000000L), varint(2, 21), field(6, kvMsg("exception.type", "RangeError")),
        field(6, kvMsg("exception.message", "too deep")));
    byte[] logs = field(1, concat(field(1, resource), field(2, field(2, log))));

    Decoded d = OtlpProto.logs(logs, 10);

    assertThat(d.found).hasSize(1);
    Found f = d.found.get(0);
    assertThat(f.type()).isEqualTo("RangeError");
    assertThat(f.message()).isEqualTo("too deep");
    assertThat(f.fatal()).isTrue();
    assertThat(f.timeNanos()).isEqualTo(1796032800123000000L);
    assertThat(f.resource()).containsEntry("expo.update.id", "u-2").containsEntry("expo.client.id", "C-1");

    byte[] event = concat(fixed64(1, 5L), str(2, "exception"), field(3, kvMsg("exception.type", "Error")), field(3, kvBool("exception.escaped")));
    byte[] span = concat(str(5, "render"), field(11, event));
    byte[] traces = field(1, concat(field(1, resource), field(2, field(2, span))));

    Decoded t = OtlpProto.traces(traces, 10);

    assertThat(t.found).hasSize(1);
    assertThat(t.found.get(0).type()).isEqualTo("Error");
    assertThat(t.found.get(0).fatal()).isTrue();
  }

  @Test
  void aProtobufFieldRunningPastItsMessageIsRefused() {
    byte[] bad = {0x0a, 0x7f, 0x0a, 0x01};
    assertThatThrownBy(() -> OtlpProto.logs(bad, 10)).isInstanceOf(OtlpSyntaxException.class).hasMessageContaining("runs past");
    byte[] badWire = {0x0b};
    assertThatThrownBy(() -> OtlpProto.logs(badWire, 10)).isInstanceOf(OtlpSyntaxException.class).hasMessageContaining("wire type 3");
  }

  private static byte[] kv(String k, String v) {
    return field(1, kvMsg(k, v));
  }

  private static byte[] kvMsg(String k, String v) {
    return concat(str(1, k), field(2, str(1, v)));
  }

  private static byte[] kvBool(String k) {
    return concat(str(1, k), field(2, varint(2, 1)));
  }

  private static byte[] msg(byte[]... parts) {
    return concat(parts);
  }

  private static byte[] str(int n, String s) {
    return field(n, s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] field(int n, byte[] body) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    writeVarint(o, (long) n << 3 | 2);
    writeVarint(o, body.length);
    o.writeBytes(body);
    return o.toByteArray();
  }

  private static byte[] varint(int n, long v) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    writeVarint(o, (long) n << 3);
    writeVarint(o, v);
    return o.toByteArray();
  }

  private static byte[] fixed64(int n, long v) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    writeVarint(o, (long) n << 3 | 1);
    for (int i = 0; i < 8; i++) {
      o.write((int) (v >>> (8 * i)) & 0xff);
    }
    return o.toByteArray();
  }

  private static void writeVarint(ByteArrayOutputStream o, long v) {
    while ((v & ~0x7fL) != 0) {
      o.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    o.write((int) v);
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      o.writeBytes(p);
    }
    return o.toByteArray();
  }
}
