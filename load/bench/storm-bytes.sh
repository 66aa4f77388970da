#!/usr/bin/env bash
# The push storm's total bytes with and without bundle patches (docs/benchmarks/bundle-patches.md), each on
# a fresh `updraft dev` (its edge serves launch assets): publish fixture update 1 and update 2 (the fleet
# runs update 2), then the storm, whose trigger republishes update 1 at 2 s: every device turns outdated and
# downloads the launch asset, as a patch from update 2's bundle when --asset-patches is true (A-IM: bsdiff,
# as the clients send it) or in full when false, in the encoding the platform's client accepts. Bytes per
# download do not depend on the machine; the share of patches does (until the patch job of the republish
# has finished, devices get the full bundle), and so does the latency in the same files.
# Usage: load/bench/storm-bytes.sh   (environment: OUT, SCALE [0.3], TIME_SCALE [0.25])
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/docs/benchmarks/runs/$(date -u +%Y-%m-%d)}
TOKEN=bench-admin-token-0123456789abcdef
CONTROL=8080; EDGE=3000
SERVER=http://127.0.0.1:$CONTROL
export UPDRAFT_SERVER=$SERVER UPDRAFT_TOKEN=$TOKEN
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree "$OUT"
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
wait_http() { local i=0; until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt $(( $2 * 5 )) ] && { log "timeout waiting for $1"; return 1; }; sleep 0.2; done; }

for patches in true false; do
  data=$(mktemp -d /tmp/updraft-storm-XXXX); work=$(mktemp -d /tmp/updraft-storm-out-XXXX)
  log "patches=$patches: starting updraft dev (data $data)"
  UPDRAFT_JAVA_OPTS="-Xmx1g" ./updraft dev --data-dir "$data" --control-port $CONTROL --edge-port $EDGE --admin-token $TOKEN \
    > "$work/dev.log" 2>&1 &
  dev=$!
  trap 'kill $dev 2>/dev/null || true' EXIT
  wait_http http://127.0.0.1:$EDGE/readyz 300
  ./updraft keys generate --out "$work/keys" --common-name "Updraft benchmark" >/dev/null
  ./updraft apps create demo --certificate "$work/keys/certificate.pem" --private-key "$work/keys/private-key.pem" >/dev/null
  g1=$(./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist fixtures/expo-export-sdk57/update-1 --no-progress --json | jq -r .groupId)
  ./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist fixtures/expo-export-sdk57/update-2 --no-progress --json >/dev/null
  sleep 5 # the patch job of update 2 (against update 1) runs after the publish
  log "published $g1 and update 2; storm with --asset-patches $patches"
  set +e
  ./updraft load run --name "storm-patches-$patches" --profile storm --scale "${SCALE:-0.15}" --time-scale "${TIME_SCALE:-0.25}" \
    --target http://127.0.0.1:$EDGE --app demo --channels production --runtime-versions 1.0.0 --up-to-date 1.0 \
    --assets --asset-patches "$patches" --out-dir "$work" --metrics edge=http://127.0.0.1:$EDGE/metrics \
    --trigger-url $SERVER/v1/apps/demo/rollbacks --trigger-method POST --trigger-token $TOKEN \
    --trigger-body "{\"branch\":\"production\",\"runtimeVersion\":\"1.0.0\",\"toGroupId\":\"$g1\"}" > "$work/run.out" 2>&1
  status=$?
  set -e
  log "patches=$patches: exit $status"; tail -n 8 "$work/run.out" >&2
  cp "$work"/storm-patches-$patches*summary*.json "$OUT/" 2>/dev/null || cp "$work"/*.json "$OUT/" 2>/dev/null || true
  cp "$work/run.out" "$OUT/storm-patches-$patches.txt"
  curl -fs http://127.0.0.1:$EDGE/metrics | grep -E "^updraft_edge_(patch|asset)" > "$OUT/storm-patches-$patches-edge-metrics.txt" || true
  kill $dev; wait $dev 2>/dev/null || true
  trap - EXIT
  rm -rf "$data"
done
log "done: $OUT"
