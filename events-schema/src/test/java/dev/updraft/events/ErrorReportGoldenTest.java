package dev.updraft.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The {@code updraft.errors} record: the v1 golden file decodes to its fields and this build writes the same bytes. */
class ErrorReportGoldenTest {

  @Test
  void theV1GoldenRecordDecodesAndThisBuildWritesItByteForByte() throws IOException {
    byte[] golden = GoldenFilesTest.golden("/golden-errors/v1/error-report.json");
    ErrorReport r = ErrorReportCodec.decode(golden);

    assertThat(r.reportId()).isEqualTo("e7707000-0000-4000-8000-000000000001");
    assertThat(r.updateId()).isEqualTo("9f1c1f4e-8d5a-4d8e-9a53-0b1f2c3d4e5f");
    assertThat(r.errorType()).isEqualTo("TypeError");
    assertThat(r.stacktrace()).contains("at LoginScreen (index.bundle:1:2345)");
    assertThat(r.platform()).isEqualTo("ios");
    assertThat(new String(ErrorReportCodec.encode(r), StandardCharsets.UTF_8)).isEqualTo(new String(golden, StandardCharsets.UTF_8));
  }

  @Test
  void aRecordOfALaterVersionOrWithoutItsIdsIsRefusedWithTheReason() {
    assertThatThrownBy(() -> ErrorReportCodec.decode("{\"v\":2,\"reportId\":\"x\",\"appId\":\"a\",\"errorType\":\"E\",\"fatal\":false,\"atEpochMillis\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class).hasMessageContaining("v=2");
    assertThatThrownBy(() -> ErrorReportCodec.decode("{\"v\":1,\"appId\":\"a\",\"errorType\":\"E\",\"fatal\":false,\"atEpochMillis\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class).hasMessageContaining("reportId");
  }
}
