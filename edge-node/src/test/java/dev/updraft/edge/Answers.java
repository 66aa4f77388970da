package dev.updraft.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.testing.protocol.MultipartBody;
import dev.updraft.testing.protocol.MultipartPart;
import dev.updraft.testing.protocol.OkHttpMultipart;
import dev.updraft.testing.protocol.StrictMultipartParser;
import java.util.List;

/** Reading edge answers with the independent protocol toolkit (never with edge code). */
final class Answers {
  private Answers() {}

  /**
   * Parses a multipart answer with the strict iOS-style reader and with OkHttp's reader (Android) and
   * checks both see the same parts with the same bytes.
   */
  static MultipartBody multipart(EdgeHttp.Response r) {
    assertThat(r.status()).as("status of %s", r).isEqualTo(200);
    String type = r.header("content-type");
    assertThat(type).startsWith("multipart/mixed; boundary=");
    MultipartBody ios = StrictMultipartParser.parse(type, r.body());
    List<MultipartPart> android = OkHttpMultipart.parse(type, r.body());
    assertThat(android).hasSameSizeAs(ios.parts());
    for (int i = 0; i < android.size(); i++) {
      assertThat(android.get(i).name()).isEqualTo(ios.parts().get(i).name());
      assertThat(android.get(i).body()).isEqualTo(ios.parts().get(i).body());
      assertThat(android.get(i).headerNames()).isEqualTo(ios.parts().get(i).headerNames());
    }
    assertThat(ios.preambleBytes()).isZero();
    assertThat(ios.epilogueBytes()).isZero();
    return ios;
  }

  /** The names of the parts, in order. */
  static List<String> names(MultipartBody b) {
    return b.parts().stream().map(MultipartPart::name).toList();
  }
}
