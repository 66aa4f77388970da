package dev.updraft.ingester;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.pgclient.PgException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class DeadLettersTest {

  private static PgException pg(String sqlState) {
    return new PgException("refused", "ERROR", sqlState, "detail");
  }

  @Test
  void onlyErrorsAboutTheValuesThemselvesCountTowardsSettingRecordsAside() {
    // a value out of range, a constraint, an index row too large: the same write fails again
    assertThat(DeadLetters.dataError(pg("22001"))).isTrue();
    assertThat(DeadLetters.dataError(pg("23505"))).isTrue();
    assertThat(DeadLetters.dataError(pg("54000"))).isTrue();
    // PostgreSQL shutting down or crashed, out of connections, a deadlock, a missing table: never the record's fault
    assertThat(DeadLetters.dataError(pg("57P01"))).isFalse();
    assertThat(DeadLetters.dataError(pg("53300"))).isFalse();
    assertThat(DeadLetters.dataError(pg("40P01"))).isFalse();
    assertThat(DeadLetters.dataError(pg("42P01"))).isFalse();
    assertThat(DeadLetters.dataError(new ConnectException("Connection refused"))).isFalse();
    assertThat(DeadLetters.dataError(new TimeoutException("batch write not finished"))).isFalse();
  }
}
