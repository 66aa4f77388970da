package dev.updraft.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;

/** JSON codec for {@link ErrorReport} (the {@code updraft.errors} topic's records). Thread-safe. */
public final class ErrorReportCodec {
  private ErrorReportCodec() {}

  public static byte[] encode(ErrorReport r) {
    try {
      return EventCodec.MAPPER.writeValueAsBytes(r);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot encode error report id=" + r.reportId(), ex);
    }
  }

  /**
   * Decodes a record.
   *
   * @throws IOException when the bytes are not an error report of a version this code reads; the caller counts and skips it
   */
  public static ErrorReport decode(byte[] bytes) throws IOException {
    if (bytes == null || bytes.length == 0) {
      throw new IOException("empty error report record");
    }
    ErrorReport r = EventCodec.MAPPER.readValue(bytes, ErrorReport.class);
    if (r.v() < 1 || r.v() > ErrorReport.CURRENT_VERSION) {
      throw new IOException("error report v=" + r.v() + " is not a version this reader knows (1.." + ErrorReport.CURRENT_VERSION + ")");
    }
    if (r.reportId() == null || r.appId() == null || r.errorType() == null) {
      throw new IOException("error report lacks reportId, appId or errorType");
    }
    return r;
  }
}
