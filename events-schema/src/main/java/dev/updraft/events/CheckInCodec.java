package dev.updraft.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;

/**
 * Codec for {@link CheckIn}: JSON, and the compact form ({@link CheckInBinary}) edges write since issue 19;
 * {@link #decode} reads both, so records older edges left in the topic still decode. Thread-safe.
 */
public final class CheckInCodec {
  private CheckInCodec() {}

  public static byte[] encode(CheckIn c) {
    try {
      return EventCodec.MAPPER.writeValueAsBytes(c);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot encode check-in id=" + c.checkInId(), ex);
    }
  }

  /**
   * Decodes a check-in, JSON or compact (told apart by the first byte).
   *
   * @throws IOException when the bytes are not a check-in; the caller counts and skips the record
   */
  public static CheckIn decode(byte[] bytes) throws IOException {
    if (bytes == null || bytes.length == 0) {
      throw new IOException("empty check-in record");
    }
    CheckIn c = CheckInBinary.isCompact(bytes) ? CheckInBinary.decode(bytes) : EventCodec.MAPPER.readValue(bytes, CheckIn.class);
    if (c.checkInId() == null || c.appId() == null || c.platform() == null) {
      throw new IOException("check-in lacks checkInId, appId or platform");
    }
    return c;
  }
}
