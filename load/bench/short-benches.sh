#!/usr/bin/env bash
# The benchmarks that take minutes, not an hour, one after the other, each writing its summary JSON (and
# its printed output) into docs/benchmarks/runs/<UTC date>/: bundle patches, the per-request decision
# (JMH), the edge against a trivial server (check-ins on, then off), and publish-to-served through the
# publish API (publish, then roll back). Run it on a quiet machine: nothing else building or testing.
# Usage: load/bench/short-benches.sh [patches] [resolve] [throughput] [latency]   (default: all four)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-docs/benchmarks/runs/$(date -u +%Y-%m-%d)}
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
STEPS=("$@"); [ ${#STEPS[@]} -eq 0 ] && STEPS=(patches resolve throughput latency)

if [[ " ${STEPS[*]} " == *" throughput "* ]] && ! command -v wrk >/dev/null; then
  echo "the throughput step needs wrk: apt-get install -y wrk (Debian and Ubuntu package it)" >&2; exit 2
fi
echo "building the test classes and their classpaths (once)"
./mvnw -B -q -o install -DskipTests -Dcheckstyle.skip >/dev/null
for m in control-plane edge-node system-tests; do
  ./mvnw -B -q -o dependency:build-classpath -pl $m -Dmdep.includeScope=test -Dmdep.outputFile="$ROOT/$m/target/bench.cp" >/dev/null
done
cp_of() { echo "$ROOT/$1/target/test-classes:$ROOT/$1/target/classes:$(cat "$ROOT/$1/target/bench.cp")"; }
machine() { echo "$(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1)"; }

for step in "${STEPS[@]}"; do
  echo "== $step ($(date -u +%H:%M:%S) UTC; $(machine))"
  case $step in
    patches)
      java -Xmx512m -cp "$(cp_of control-plane)" dev.updraft.controlplane.patches.PatchBench "$OUT/bundle-patches-summary.json" | tee "$OUT/bundle-patches.txt" ;;
    resolve)
      java -cp "$(cp_of edge-node)" dev.updraft.edge.image.ResolveBenchmark "$OUT/edge-resolve-jmh.json" | tee "$OUT/edge-resolve.txt" | grep -E "^Benchmark|^ResolveBenchmark|avgt" ;;
    throughput)
      java -Xmx2g -cp "$(cp_of edge-node)" dev.updraft.edge.ThroughputBench seconds=10 rounds=4 warmup=10 summary="$OUT/edge-throughput-summary.json" | tee "$OUT/edge-throughput.txt" | grep "^|"
      java -Xmx2g -cp "$(cp_of edge-node)" dev.updraft.edge.ThroughputBench seconds=10 rounds=2 warmup=5 checkins=false summary="$OUT/edge-throughput-checkins-off-summary.json" | tee "$OUT/edge-throughput-checkins-off.txt" | grep "^|" ;;
    latency)
      for mode in publish rollback; do
        java -Xmx2g -cp "$(cp_of system-tests)" dev.updraft.systemtests.bench.PublishLatencyBench mode=$mode out="$OUT" | tee "$OUT/publish-latency-$mode.txt" | tail -12
      done ;;
    *) echo "unknown step $step (patches, resolve, throughput, latency)" >&2; exit 2 ;;
  esac
done
echo "done: $OUT"
