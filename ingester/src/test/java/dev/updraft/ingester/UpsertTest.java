package dev.updraft.ingester;

import static dev.updraft.ingester.Upsert.OnConflict.ADD;
import static dev.updraft.ingester.Upsert.OnConflict.KEEP;
import static dev.updraft.ingester.Upsert.OnConflict.KEY;
import static dev.updraft.ingester.Upsert.OnConflict.REPLACE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.sqlclient.Tuple;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The statement and the parameter arrays come from one column table: pure logic, no database. */
class UpsertTest {
  record Row(String id, long n, List<String> ids, Long at) {}

  private static final Upsert<Row> T =
      Upsert.<Row>into("things", "x")
          .text("id", KEY, Row::id)
          .bigint("n", ADD, Row::n)
          .ids("tags", REPLACE, Row::ids)
          .millis("seen", KEEP, Row::at)
          .build();

  @Test
  void generatesColumnsParametersAndConflictRulesInOneOrder() {
    assertThat(T.sql()).isEqualTo(
        "INSERT INTO things AS x (id, n, tags, seen)"
            + " SELECT id, n, coalesce(string_to_array(nullif(tags, ''), ','), '{}'), to_timestamp(seen_ms::float8 / 1000)"
            + " FROM (SELECT unnest($1::text[]) AS id, unnest($2::bigint[]) AS n, unnest($3::text[]) AS tags,"
            + " unnest($4::bigint[]) AS seen_ms) AS t"
            + " ON CONFLICT (id) DO UPDATE SET n = x.n + EXCLUDED.n, tags = EXCLUDED.tags");
  }

  @Test
  void buildsOneTypedArrayPerColumnWithTheRowsInOrder() {
    Tuple t = T.tuple(List.of(new Row("a", 1, List.of("p", "q"), 10L), new Row("b", 2, List.of(), null)));
    assertThat(t.size()).isEqualTo(T.columns().size());
    assertThat((String[]) t.getValue(0)).containsExactly("a", "b");
    assertThat((Long[]) t.getValue(1)).containsExactly(1L, 2L);
    assertThat((String[]) t.getValue(2)).as("ids joined; none is null").containsExactly("p,q", null);
    assertThat((Long[]) t.getValue(3)).containsExactly(10L, null);
  }

  @Test
  void leavesExistingRowsAloneWhenNoColumnChanges() {
    Upsert<Row> once = Upsert.<Row>into("firsts", "f").text("id", KEY, Row::id).millis("at", KEEP, Row::at).build();
    assertThat(once.sql()).endsWith("ON CONFLICT (id) DO NOTHING");
  }

  @Test
  void refusesAColumnDeclaredTwiceOrATableWithoutKey() {
    assertThatThrownBy(() -> Upsert.<Row>into("t", "t").text("id", KEY, Row::id).text("id", REPLACE, Row::id))
        .hasMessageContaining("t.id declared twice");
    assertThatThrownBy(() -> Upsert.<Row>into("t", "t").text("id", REPLACE, Row::id).build())
        .hasMessageContaining("no key column");
  }
}
