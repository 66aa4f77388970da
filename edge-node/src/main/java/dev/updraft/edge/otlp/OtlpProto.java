package dev.updraft.edge.otlp;

import java.util.Map;

/**
 * OTLP/HTTP protobuf ({@code application/x-protobuf}): {@code ExportLogsServiceRequest} and
 * {@code ExportTraceServiceRequest} read field by field with {@link ProtoReader} (field numbers from
 * opentelemetry-proto's {@code logs/v1/logs.proto}, {@code trace/v1/trace.proto} and {@code common/v1/common.proto});
 * unknown fields are skipped. Thread-safe (no state).
 */
final class OtlpProto {
  private OtlpProto() {}

  static Decoded logs(byte[] body, int cap) throws OtlpSyntaxException {
    Decoded d = new Decoded(cap);
    ProtoReader req = new ProtoReader(body);
    while (req.more()) {
      int tag = req.tag();
      if (tag == field(1, ProtoReader.LEN)) { // resource_logs
        ProtoReader rl = req.message();
        Map<String, String> resource = Attributes.newMap();
        java.util.List<ProtoReader> scopes = new java.util.ArrayList<>();
        while (rl.more()) {
          int t = rl.tag();
          if (t == field(1, ProtoReader.LEN)) {
            resource(rl.message(), resource);
          } else if (t == field(2, ProtoReader.LEN)) {
            scopes.add(rl.message());
          } else {
            rl.skip(t);
          }
        }
        for (ProtoReader sl : scopes) {
          while (sl.more()) {
            int t = sl.tag();
            if (t == field(2, ProtoReader.LEN)) { // log_records
              d.items++;
              logRecord(sl.message(), resource, d);
            } else {
              sl.skip(t);
            }
          }
        }
      } else {
        req.skip(tag);
      }
    }
    return d;
  }

  static Decoded traces(byte[] body, int cap) throws OtlpSyntaxException {
    Decoded d = new Decoded(cap);
    ProtoReader req = new ProtoReader(body);
    while (req.more()) {
      int tag = req.tag();
      if (tag == field(1, ProtoReader.LEN)) { // resource_spans
        ProtoReader rs = req.message();
        Map<String, String> resource = Attributes.newMap();
        java.util.List<ProtoReader> scopes = new java.util.ArrayList<>();
        while (rs.more()) {
          int t = rs.tag();
          if (t == field(1, ProtoReader.LEN)) {
            resource(rs.message(), resource);
          } else if (t == field(2, ProtoReader.LEN)) {
            scopes.add(rs.message());
          } else {
            rs.skip(t);
          }
        }
        for (ProtoReader ss : scopes) {
          while (ss.more()) {
            int t = ss.tag();
            if (t == field(2, ProtoReader.LEN)) { // spans
              d.items++;
              span(ss.message(), resource, d);
            } else {
              ss.skip(t);
            }
          }
        }
      } else {
        req.skip(tag);
      }
    }
    return d;
  }

  private static int field(int number, int wireType) {
    return number << 3 | wireType;
  }

  private static void resource(ProtoReader r, Map<String, String> into) throws OtlpSyntaxException {
    while (r.more()) {
      int t = r.tag();
      if (t == field(1, ProtoReader.LEN)) {
        keyValue(r.message(), into);
      } else {
        r.skip(t);
      }
    }
  }

  private static void logRecord(ProtoReader r, Map<String, String> resource, Decoded d) throws OtlpSyntaxException {
    Map<String, String> attrs = Attributes.newMap();
    long time = 0;
    long observed = 0;
    long severity = 0;
    String body = null;
    while (r.more()) {
      int t = r.tag();
      if (t == field(1, ProtoReader.I64)) {
        time = r.fixed64();
      } else if (t == field(11, ProtoReader.I64)) {
        observed = r.fixed64();
      } else if (t == field(2, ProtoReader.VARINT)) {
        severity = r.varint();
      } else if (t == field(5, ProtoReader.LEN)) {
        body = anyValue(r.message());
      } else if (t == field(6, ProtoReader.LEN)) {
        keyValue(r.message(), attrs);
      } else {
        r.skip(t);
      }
    }
    Found f = Attributes.exception(resource, "log", attrs, body, severity >= Attributes.SEVERITY_FATAL, time != 0 ? time : observed);
    if (f != null) {
      d.add(f);
    }
  }

  private static void span(ProtoReader r, Map<String, String> resource, Decoded d) throws OtlpSyntaxException {
    while (r.more()) {
      int t = r.tag();
      if (t == field(11, ProtoReader.LEN)) { // events
        ProtoReader ev = r.message();
        Map<String, String> attrs = Attributes.newMap();
        long time = 0;
        while (ev.more()) {
          int et = ev.tag();
          if (et == field(1, ProtoReader.I64)) {
            time = ev.fixed64();
          } else if (et == field(3, ProtoReader.LEN)) {
            keyValue(ev.message(), attrs);
          } else {
            ev.skip(et);
          }
        }
        Found f = Attributes.exception(resource, "span", attrs, null, false, time);
        if (f != null) {
          d.add(f);
        }
      } else {
        r.skip(t);
      }
    }
  }

  private static void keyValue(ProtoReader kv, Map<String, String> into) throws OtlpSyntaxException {
    String key = null;
    String value = null;
    while (kv.more()) {
      int t = kv.tag();
      if (t == field(1, ProtoReader.LEN)) {
        key = kv.string();
      } else if (t == field(2, ProtoReader.LEN)) {
        value = anyValue(kv.message());
      } else {
        kv.skip(t);
      }
    }
    Attributes.put(into, key, value);
  }

  /** An AnyValue's scalar as text (string, bool, int, double); null for arrays, maps and bytes. */
  private static String anyValue(ProtoReader v) throws OtlpSyntaxException {
    String out = null;
    while (v.more()) {
      int t = v.tag();
      if (t == field(1, ProtoReader.LEN)) {
        out = v.string();
      } else if (t == field(2, ProtoReader.VARINT)) {
        out = v.varint() != 0 ? "true" : "false";
      } else if (t == field(3, ProtoReader.VARINT)) {
        out = Long.toString(v.varint());
      } else if (t == field(4, ProtoReader.I64)) {
        out = Double.toString(Double.longBitsToDouble(v.fixed64()));
      } else {
        v.skip(t);
      }
    }
    return out;
  }
}
