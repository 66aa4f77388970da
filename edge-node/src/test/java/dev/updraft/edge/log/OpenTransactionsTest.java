package dev.updraft.edge.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.updraft.events.Topics;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class OpenTransactionsTest {
  private static final long T0 = 1_000_000_000L;

  private static RecordHeaders more(int n) {
    RecordHeaders h = new RecordHeaders();
    h.add(Topics.MORE_HEADER, Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
    return h;
  }

  private static byte[] key(String app) {
    return app.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anAppsTransactionStaysOpenUntilItsRecordWithoutTheHeaderWhateverOtherAppsWriteBetween() {
    OpenTransactions t = new OpenTransactions();
    t.see(key("shop"), 0, more(2), T0);
    t.see(key("news"), 1, new RecordHeaders(), T0); // another app's single event
    t.see(key("shop"), 0, more(1), T0);
    assertThat(t.any()).isTrue();
    assertThat(t.inPartition(0)).isTrue();
    assertThat(t.inPartition(1)).isFalse();
    assertThat(t.describe()).isEqualTo("[shop@0]");

    t.see(key("shop"), 0, new RecordHeaders(), T0);

    assertThat(t.any()).isFalse();
  }

  @Test
  void twoAppsOpenAtOnceEachCloseOnItsOwnLastRecord() {
    OpenTransactions t = new OpenTransactions();
    t.see(key("shop"), 0, more(1), T0);
    t.see(key("news"), 2, more(1), T0);
    t.see(key("shop"), 0, new RecordHeaders(), T0);
    assertThat(t.describe()).isEqualTo("[news@2]");
    t.see(key("news"), 2, new RecordHeaders(), T0);
    assertThat(t.any()).isFalse();
  }

  @Test
  void recordsWithoutAKeyOrHeaderChangeNothingAndAnOpenTransactionAgesFromItsFirstRecord() {
    OpenTransactions t = new OpenTransactions();
    t.see(null, 0, more(3), T0);
    t.see(key("shop"), 0, new RecordHeaders(), T0);
    assertThat(t.any()).isFalse();

    t.see(key("shop"), 0, more(3), T0);
    t.see(key("shop"), 0, more(2), T0 + TimeUnit.SECONDS.toNanos(20));
    assertThat(t.tooOld(T0 + TimeUnit.SECONDS.toNanos(29))).isFalse();
    assertThat(t.tooOld(T0 + TimeUnit.SECONDS.toNanos(31))).as("counted from the first record read").isTrue();
    t.clear();
    assertThat(t.any()).isFalse();
    assertThat(t.tooOld(T0 + TimeUnit.SECONDS.toNanos(100))).isFalse();
  }
}
