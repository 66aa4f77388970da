#!/usr/bin/env bash
# Where PostgreSQL's CPU goes when it writes check-in batches: BatchCostBench (the ingester's BatchWriter into
# a PostgreSQL with fsync on, no Kafka) under a system-wide sampling profiler, then PostgreSQL's own functions
# grouped by what they do (index search, heap tuples, buffers and locks, HOT pruning, parameters and arrays,
# ...). Needs perf (Debian: apt-get install -y linux-perf) and the right to sample every process (root, or
# kernel.perf_event_paranoid <= 0). Run it on a quiet machine. The profile covers the whole run: PostgreSQL's
# start, the warm-up batches and the measured ones (the warm-up is a tenth of the batches by default).
# Usage: [OUT=dir] [NAME=pg-profile] load/bench/pg-profile.sh [BatchCostBench flags]   (default: --devices 100000 --warmup 10
#   --batches 100); writes $OUT/$NAME.txt, $OUT/$NAME-summary.json (the groups) and $OUT/$NAME-batch-cost-summary.json
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-docs/benchmarks/runs/$(date -u +%Y-%m-%d)}
NAME=${NAME:-pg-profile}
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
command -v perf >/dev/null || { echo "needs perf: apt-get install -y linux-perf" >&2; exit 2; }
ARGS=("$@"); [ ${#ARGS[@]} -eq 0 ] && ARGS=(--devices 100000 --warmup 10 --batches 100)

echo "building the ingester's test classes and classpath"
./mvnw -B -q -o install -DskipTests -Dcheckstyle.skip >/dev/null
./mvnw -B -q -o -pl ingester dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$ROOT/ingester/target/bench.cp" >/dev/null
CP=$ROOT/ingester/target/test-classes:$ROOT/ingester/target/classes:$(cat "$ROOT/ingester/target/bench.cp")
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "$(java -version 2>&1 | head -1), $(perf --version)" | tee "$OUT/$NAME.txt"
echo "command: perf record -e cpu-clock -a -F 499 -- java -Xmx1g ... BatchCostBench ${ARGS[*]}" | tee -a "$OUT/$NAME.txt"
perf record -q -e cpu-clock -a -F 499 -o "$DATA/perf.data" -- \
  java -Xmx1g -cp "$CP" dev.updraft.ingester.BatchCostBench "${ARGS[@]}" --summary "$OUT/$NAME-batch-cost-summary.json" \
  2>&1 | grep -v " INFO \| WARN " | tee -a "$OUT/$NAME.txt"

# every sample of a process named postgres, by function; [k] marks the kernel's
perf report -i "$DATA/perf.data" --comm postgres --no-children --sort sym --stdio -g none 2>/dev/null \
  | grep -v '^#' | grep -v '^$' >"$DATA/syms.txt"
awk -v json="$OUT/$NAME-summary.json" '
  function group(kind, s) {
    if (kind == "k") return "kernel (file writes, page faults, scheduling)";
    if (s ~ /^_bt|^bt|BTree|varstr_cmp|text_cmp|texteq|index_getattr|^index_|IndexConstraints|IndexTuples|check_exclusion|lc_collate/) return "index search and insert (B-tree)";
    if (s ~ /prune|compactify|SatisfiesVacuum|PageRepairFragmentation/) return "HOT pruning of old row versions";
    if (s ~ /^heap_|fill_val|PageAddItem|HeapTupleSatisfies|BufferForTuple|ExecUpdate|ExecInsert|ExecOnConflict|^tts_|slot_|fetch_att|minimal_tuple|nocachegetattr|xmax/) return "heap rows (lock, form, insert, update)";
    if (s ~ /Buffer|LWLock|hash_search|hash_bytes|hash_initial|^Lock|GetPrivateRefCount|^Pin|ResourceOwner|TransactionId/) return "shared buffers and locks";
    if (s ~ /array|Array|unnest|^pq_|bind|cstring_to_text|pg_utf8|pg_verify|ProjectSet|ResultSet|recv$/) return "parameters and arrays (bind, unnest)";
    if (s ~ /XLog|crc32|[Ww]al/) return "WAL records";
    if (s ~ /Alloc|palloc|pfree|MemoryContext/) return "memory contexts";
    if (s ~ /^Exec|FunctionCall|^fmgr|[Aa]gg|tuplesort|tuplestore|tuplehash|qsort|Datum|datum|^int8|^float8|hashtext|Cte/) return "executor: expressions, CTEs, aggregation";
    return "other";
  }
  match($0, /^ *[0-9.]+%/) {
    pct = substr($0, RSTART, RLENGTH - 1) + 0; rest = substr($0, RSTART + RLENGTH);
    kind = rest ~ /\[k\]/ ? "k" : "u"; sub(/.*\[[k.]\] +/, "", rest); sym = rest;
    total += pct; g = group(kind, sym); share[g] += pct;
    if (g == "other" && nother < 12) { others = others sprintf(" %s %.2f%%", sym, pct); nother++ }
  }
  END {
    printf "\nPostgreSQL processes: %.1f %% of all samples on both cores, idle included; by what their functions do:\n", total;
    n = 0; for (g in share) order[n++] = g;
    for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (share[order[j]] > share[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
    printf "{\n  \"postgres_percent_of_samples\": %.2f,\n  \"share_of_postgres_percent\": {", total > json;
    for (i = 0; i < n; i++) {
      printf "  %5.1f %%  %s\n", 100 * share[order[i]] / total, order[i];
      printf "%s\n    \"%s\": %.1f", (i ? "," : ""), order[i], 100 * share[order[i]] / total > json;
    }
    printf "\n  }\n}\n" > json;
    printf "largest functions in \"other\":%s\n", others;
  }' "$DATA/syms.txt" | tee -a "$OUT/$NAME.txt"
echo "top 30 functions (percent of all samples):" | tee -a "$OUT/$NAME.txt"
head -30 "$DATA/syms.txt" | tee -a "$OUT/$NAME.txt"
echo "summaries: $OUT/$NAME-summary.json, $OUT/$NAME-batch-cost-summary.json"
