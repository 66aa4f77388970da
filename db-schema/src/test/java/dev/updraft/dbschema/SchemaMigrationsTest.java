package dev.updraft.dbschema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The migrations as the classpath holds them: listed in order, and released ones unchanged. */
class SchemaMigrationsTest {

  @Test
  void listsTheMigrationsInVersionOrder() {
    List<SchemaMigrations.Migration> all = SchemaMigrations.load();
    assertThat(all).extracting(SchemaMigrations.Migration::file).startsWith("V1__telemetry.sql");
    assertThat(all.get(0).version()).isEqualTo(1);
    assertThat(all.get(0).description()).isEqualTo("telemetry");
    for (int i = 1; i < all.size(); i++) {
      assertThat(all.get(i).version()).as("versions increase").isGreaterThan(all.get(i - 1).version());
    }
  }

  @Test
  void releasedMigrationsKeepTheChecksumDatabasesRecorded() {
    // a database migrated by an earlier build refuses to start when one of these changes: add a V<n+1> instead
    assertThat(SchemaMigrations.load().get(0).checksum())
        .as("V1__telemetry.sql")
        .isEqualTo("819de8e3abf5965ea413e41a35c2766054f22228913ce637573b44c51c07f3d1");
  }
}
