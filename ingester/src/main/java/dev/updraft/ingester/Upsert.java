package dev.updraft.ingester;

import io.vertx.sqlclient.Tuple;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * A set-based multi-row upsert of one table, generated from its table of columns: {@code INSERT INTO
 * table (columns) SELECT ... FROM (SELECT unnest($1::type[]) AS c1, ...) t ON CONFLICT (keys) DO UPDATE SET
 * ...}. The arrays are unnested side by side in a select list (they have one length, so they are read in
 * lockstep), not by {@code FROM unnest($1, $2, ...)}: that form stores each array's elements in a
 * tuplestore of its own before zipping them, a cost per element and column that the select list does
 * not have. Each
 * column is declared once, with its name, the array type it is sent as, what an existing row does with it
 * and how its value is read from a row of the batch; the column list, the {@code unnest} parameters,
 * the {@code SET} list and the parameter arrays all come from that one list, so they cannot disagree.
 *
 * <p>Immutable and thread-safe once built.
 *
 * @param <R> the batch's row type (one element of each parameter array)
 */
final class Upsert<R> {

  /** The PostgreSQL array type a column is sent as, with the Java type of its elements. */
  enum SqlArray {
    TEXT("text[]", String.class),
    BIGINT("bigint[]", Long.class),
    INT("int[]", Integer.class),
    BOOLEAN("boolean[]", Boolean.class);

    final String sql;
    final Class<?> element;

    SqlArray(String sql, Class<?> element) {
      this.sql = sql;
      this.element = element;
    }
  }

  /**
   * What the upsert does with a column when the row is already there: a key (part of the conflict
   * target, never changed), kept as first written, or set to an expression where {@code {t}} stands for
   * the existing row's alias and {@code {c}} for the column.
   */
  record OnConflict(String set) {
    static final OnConflict KEY = new OnConflict(null);
    static final OnConflict KEEP = new OnConflict("");
    static final OnConflict REPLACE = new OnConflict("EXCLUDED.{c}");
    static final OnConflict ADD = new OnConflict("{t}.{c} + EXCLUDED.{c}");
    static final OnConflict LEAST = new OnConflict("LEAST({t}.{c}, EXCLUDED.{c})");
    static final OnConflict GREATEST = new OnConflict("GREATEST({t}.{c}, EXCLUDED.{c})");

    /** A {@code SET} expression of its own (same placeholders). */
    static OnConflict set(String expression) {
      return new OnConflict(Objects.requireNonNull(expression));
    }
  }

  /**
   * One column: its name in the table, the array type its values are sent as, the name of that array in
   * the statement, the expression that turns it into the column's value, and its value per row.
   */
  record Column<R>(String name, SqlArray type, String param, String select, OnConflict onConflict, Function<R, ?> value) {}

  private final String table;
  private final String alias;
  private final List<Column<R>> columns;
  private final String alsoSet;
  private final String returning;
  private final String sql;

  private Upsert(Builder<R> b) {
    if (b.columns.isEmpty()) {
      throw new IllegalStateException("upsert into " + b.table + " declares no column");
    }
    this.table = b.table;
    this.alias = b.alias;
    this.columns = List.copyOf(b.columns);
    this.alsoSet = b.alsoSet;
    this.returning = b.returning;
    this.sql = render();
  }

  /** Starts the column table of {@code table}; {@code alias} names the existing row in conflict rules. */
  static <R> Builder<R> into(String table, String alias) {
    return new Builder<>(table, alias);
  }

  /** The statement; its parameters are {@link #tuple}'s arrays, in column order, {@code $1} first. */
  String sql() {
    return sql;
  }

  /** The columns, in the order of the statement's column list and parameters. */
  List<Column<R>> columns() {
    return columns;
  }

  /** One array per column, each holding the column's value for every row, in {@code rows}' order. */
  Tuple tuple(Collection<? extends R> rows) {
    int n = rows.size();
    Object[][] arrays = new Object[columns.size()][];
    for (int k = 0; k < arrays.length; k++) {
      arrays[k] = (Object[]) Array.newInstance(columns.get(k).type().element, n);
    }
    int i = 0;
    for (R row : rows) {
      for (int k = 0; k < arrays.length; k++) {
        arrays[k][i] = columns.get(k).value().apply(row);
      }
      i++;
    }
    List<Object> params = new ArrayList<>(arrays.length);
    for (Object[] a : arrays) {
      params.add(a);
    }
    return Tuple.tuple(params);
  }

  private String render() {
    StringJoiner names = new StringJoiner(", ");
    StringJoiner selects = new StringJoiner(", ");
    StringJoiner arrays = new StringJoiner(", ");
    StringJoiner keys = new StringJoiner(", ");
    StringJoiner sets = new StringJoiner(", ");
    if (alsoSet != null) {
      sets.add(alsoSet);
    }
    for (int k = 0; k < columns.size(); k++) {
      Column<R> c = columns.get(k);
      names.add(c.name());
      selects.add(c.select());
      arrays.add("unnest($" + (k + 1) + "::" + c.type().sql + ") AS " + c.param());
      String set = c.onConflict().set();
      if (set == null) {
        keys.add(c.name());
      } else if (!set.isEmpty()) {
        sets.add(c.name() + " = " + set.replace("{t}", alias).replace("{c}", c.name()));
      }
    }
    if (keys.length() == 0) {
      throw new IllegalStateException("upsert into " + table + " has no key column");
    }
    String onConflict =
        alsoSet == null && sets.length() == 0 ? " DO NOTHING" : " DO UPDATE SET " + sets;
    return "INSERT INTO " + table + " AS " + alias + " (" + names + ")"
        + " SELECT " + selects
        + " FROM (SELECT " + arrays + ") AS t"
        + " ON CONFLICT (" + keys + ")" + onConflict
        + (returning == null ? "" : " RETURNING " + returning);
  }

  @Override
  public String toString() {
    return sql;
  }

  /** Declares the columns, one call each, in the order they are sent. */
  static final class Builder<R> {
    private final String table;
    private final String alias;
    private final List<Column<R>> columns = new ArrayList<>();
    private String alsoSet;
    private String returning;

    private Builder(String table, String alias) {
      this.table = table;
      this.alias = alias;
    }

    Builder<R> text(String name, OnConflict onConflict, Function<R, String> value) {
      return add(name, SqlArray.TEXT, name, name, onConflict, value);
    }

    Builder<R> bigint(String name, OnConflict onConflict, Function<R, Long> value) {
      return add(name, SqlArray.BIGINT, name, name, onConflict, value);
    }

    Builder<R> integer(String name, OnConflict onConflict, Function<R, Integer> value) {
      return add(name, SqlArray.INT, name, name, onConflict, value);
    }

    Builder<R> bool(String name, OnConflict onConflict, Function<R, Boolean> value) {
      return add(name, SqlArray.BOOLEAN, name, name, onConflict, value);
    }

    /** A {@code timestamptz} column, sent as epoch milliseconds (null stays null). */
    Builder<R> millis(String name, OnConflict onConflict, Function<R, Long> value) {
      String param = name + "_ms";
      return add(name, SqlArray.BIGINT, param, "to_timestamp(" + param + "::float8 / 1000)", onConflict, value);
    }

    /**
     * A {@code text[] NOT NULL} column of ids, sent joined with commas (ids are UUID-like: a comma could
     * only split an id, never break the statement); an empty list is {@code '{}'}.
     */
    Builder<R> ids(String name, OnConflict onConflict, Function<R, List<String>> value) {
      return add(name, SqlArray.TEXT, name, "coalesce(string_to_array(nullif(" + name + ", ''), ','), '{}')", onConflict,
          row -> {
            List<String> ids = value.apply(row);
            return ids == null || ids.isEmpty() ? null : String.join(",", ids);
          });
    }

    /** {@code SET} assignments of columns not sent (they come before the per-column ones). */
    Builder<R> alsoSet(String assignments) {
      this.alsoSet = assignments;
      return this;
    }

    Builder<R> returning(String expressions) {
      this.returning = expressions;
      return this;
    }

    Upsert<R> build() {
      return new Upsert<>(this);
    }

    private Builder<R> add(
        String name, SqlArray type, String param, String select, OnConflict onConflict, Function<R, ?> value) {
      for (Column<R> c : columns) {
        if (c.name().equals(name)) {
          throw new IllegalStateException("column " + table + "." + name + " declared twice");
        }
      }
      columns.add(new Column<>(name, type, param, select, Objects.requireNonNull(onConflict), Objects.requireNonNull(value)));
      return this;
    }
  }
}
