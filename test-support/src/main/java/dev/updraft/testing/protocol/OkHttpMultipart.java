package dev.updraft.testing.protocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import okhttp3.Headers;
import okhttp3.MediaType;
import okhttp3.MultipartReader;
import okhttp3.ResponseBody;

/**
 * Reads a multipart answer with OkHttp 5's {@code MultipartReader}, the way Android's expo-updates does
 * ({@code FileDownloader.kt}: the boundary comes from the response's content-type). Header names are kept
 * as OkHttp reports them. Stateless and thread-safe.
 */
public final class OkHttpMultipart {
  private OkHttpMultipart() {}

  /**
   * The parts of {@code body} sent with {@code contentType}.
   *
   * @throws MultipartFormatException when OkHttp cannot read it (its message is kept)
   */
  public static List<MultipartPart> parse(String contentType, byte[] body) {
    MediaType type = MediaType.get(contentType);
    List<MultipartPart> parts = new ArrayList<>();
    try (ResponseBody rb = ResponseBody.create(body, type);
        MultipartReader reader = new MultipartReader(rb)) {
      MultipartReader.Part p;
      while ((p = reader.nextPart()) != null) {
        try (MultipartReader.Part part = p) {
          Headers h = part.headers();
          List<MultipartPart.Header> headers = new ArrayList<>();
          for (int i = 0; i < h.size(); i++) {
            headers.add(new MultipartPart.Header(h.name(i), h.value(i)));
          }
          parts.add(new MultipartPart(headers, part.body().readByteArray()));
        }
      }
    } catch (IOException e) {
      throw new MultipartFormatException("OkHttp MultipartReader rejected the body: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new MultipartFormatException("OkHttp rejected the content-type or body: " + e.getMessage());
    } catch (UncheckedIOException e) {
      throw new MultipartFormatException("OkHttp MultipartReader failed: " + e.getMessage());
    }
    return parts;
  }
}
