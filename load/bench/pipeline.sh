#!/usr/bin/env bash
# The check-in pipeline's targets in one command (docs/benchmarks/edge.md, docs/benchmarks/ingest.md, issue 43): Kafka
# (KRaft, in the benchmark's JVM), one ingester and PostgreSQL 17 with fsync on (--durable true), all on this machine
# (no edge: the benchmark's producer batches as an edge's does). Two measures, from one IngestBenchmark run:
#   - full batches: PREFILL [3,000,000] check-ins in the topic, then the ingester drains them: check-ins per second
#     durable in PostgreSQL, and the CPU per check-in (JVM + PostgreSQL, microseconds) -- the target: >= 50,000/s;
#   - the edge's knee: KNEE_RATE [6000] check-ins per second for SECONDS [60] (after SETTLE [30] s unmeasured), each
#     stamped at its send: lag to its commit p50 / p99 / max -- the target: p99 < 1 s; CPU per check-in at that rate.
# KNEE_RATE is the rate the pinned edge sustains: by default the sustained rate of today's `edge-pinned.sh knee` run
# (OUT/edge-pinned-knee-summary.json, capacity.measured_sustained_rps) when there is one, else 6,000 (the knee the full
# stack sustained on a quiet hour, archive/load-2026-12-01.md). Writes pipeline-summary.json and pipeline.txt to OUT [docs/benchmarks/runs/<UTC date>].
# About 4-5 min on a quiet 2-core machine after the build. SMOKE=1: 50,000 prefilled, 500/s for 10 s, files
# pipeline-smoke-* in /tmp/pipeline-smoke.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
SMOKE=${SMOKE:-0}
PREFILL=${PREFILL:-3000000}; SECONDS_RUN=${SECONDS_RUN:-60}; SETTLE=${SETTLE:-30}; DEVICES=${DEVICES:-500000}
if [ "$SMOKE" = 1 ]; then PREFILL=50000; KNEE_RATE=500; SECONDS_RUN=10; SETTLE=0; DEVICES=5000
  OUT=${OUT:-/tmp/pipeline-smoke}; TAG=pipeline-smoke; else OUT=${OUT:-$ROOT/docs/benchmarks/runs/$(date -u +%Y-%m-%d)}; TAG=pipeline; fi
mkdir -p "$OUT"
if [ -z "${KNEE_RATE:-}" ]; then
  KNEE_RATE=$(jq -r '.capacity.measured_sustained_rps // empty | floor' "$OUT/edge-pinned-knee-summary.json" 2>/dev/null || true)
  [ -n "$KNEE_RATE" ] && [ "$KNEE_RATE" -gt 0 ] 2>/dev/null && echo "KNEE_RATE $KNEE_RATE from $OUT/edge-pinned-knee-summary.json" >&2 || KNEE_RATE=6000
fi
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
echo "building the ingester's test classes and classpath (outside the clock)" >&2
./mvnw -B -q -o -pl ingester -am test-compile dependency:build-classpath -Dcheckstyle.skip -Dmdep.includeScope=test \
  -Dmdep.outputFile="$ROOT/ingester/target/bench.cp" >/dev/null
CP=$ROOT/ingester/target/test-classes:$ROOT/ingester/target/classes:$(cat "$ROOT/ingester/target/bench.cp")
{ echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"
  echo "command: IngestBenchmark --prefill $PREFILL --devices $DEVICES --rate $KNEE_RATE --seconds $SECONDS_RUN --settle $SETTLE --durable true"; } | tee "$OUT/$TAG.txt"
java -Xmx3g -Xmn1536m -XX:+UseParallelGC -cp "$CP" dev.updraft.ingester.IngestBenchmark --prefill "$PREFILL" --devices "$DEVICES" \
  --rate "$KNEE_RATE" --seconds "$SECONDS_RUN" --settle "$SETTLE" --durable true --summary "$OUT/$TAG-summary.json" | tee -a "$OUT/$TAG.txt"
jq -r '"full batches: \(.full_speed_sustained_per_second) check-ins/s durable (target >= 50,000), \(.cpu_us_per_check_in_total) us per check-in; at \(.rate) /s: lag \(.fixed_rate_lag) (target p99 < 1 s), \(.fixed_rate_cpu_us_per_check_in_total) us per check-in"' \
  "$OUT/$TAG-summary.json" | tee -a "$OUT/$TAG.txt"
echo "wrote $OUT/$TAG-summary.json"
