#!/usr/bin/env bash
# Bytes per updated device in the first minute after a publish of a NEW bundle (docs/benchmarks/bundle-patches.md,
# "The first minute after a publish"): a fresh `updraft dev` (its edge serves launch assets), fixture update 1
# published and its post-publish job finished (the whole fleet, --up-to-date 1.0, runs it), update 2's files
# uploaded but not published; then the storm profile, compressed so that it ends about a minute after its
# trigger, whose trigger publishes update 2 (POST /v1/apps/demo/updates). Every storm request comes from a device on
# update 1 that is offered update 2 and downloads its launch asset: a patch from update 1 when the patch job has
# finished (A-IM: bsdiff, as the clients ask), else the full bundle in the encoding the platform's client
# accepts (iOS br, Android zstd) -- or identity, when the edge has no encoded copy and does not make one.
# Usage: LABEL=after load/bench/first-minute-bytes.sh   (environment: OUT, LABEL, SCALE [0.1], TIME_SCALE [0.16])
# Run it from the checkout to measure (./updraft builds that working tree).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/docs/benchmarks/runs/$(date -u +%Y-%m-%d)}
LABEL=${LABEL:-run}
NAME="first-minute-$LABEL"
TOKEN=bench-admin-token-0123456789abcdef
CONTROL=${CONTROL_PORT:-8080}; EDGE=${EDGE_PORT:-3000}
SERVER=http://127.0.0.1:$CONTROL
export UPDRAFT_SERVER=$SERVER UPDRAFT_TOKEN=$TOKEN
mkdir -p "$OUT"
. "$ROOT/load/bench/tree.sh"; measured_tree
log() { echo "[$(date -u +%H:%M:%S)] $*" >&2; }
wait_http() { local i=0; until curl -fs -o /dev/null "$1"; do i=$((i+1)); [ $i -gt $(( $2 * 5 )) ] && { log "timeout waiting for $1"; return 1; }; sleep 0.2; done; }
U1=fixtures/expo-export-sdk57/update-1
U2=fixtures/expo-export-sdk57/update-2

data=$(mktemp -d /tmp/updraft-first-minute-XXXX); work=$(mktemp -d /tmp/updraft-first-minute-out-XXXX)
log "$LABEL: starting updraft dev (data $data)"
UPDRAFT_JAVA_OPTS="-Xmx1g" ./updraft dev --data-dir "$data" --control-port $CONTROL --edge-port $EDGE --admin-token $TOKEN \
  > "$work/dev.log" 2>&1 &
dev=$!
trap 'kill $dev 2>/dev/null || true' EXIT
wait_http http://127.0.0.1:$EDGE/readyz 300
./updraft apps create demo >/dev/null
./updraft publish --app demo --branch production --runtime-version 1.0.0 --dist $U1 --no-progress --json >/dev/null
# update 1's job done: its Android bundle comes as final zstd bytes (immutable) from the edge
sha1=$(sha256sum "$U1/$(jq -r .fileMetadata.android.bundle $U1/metadata.json)" | cut -d' ' -f1)
for i in $(seq 1 600); do
  h=$(curl -fsI -H 'accept-encoding: zstd' "http://127.0.0.1:$EDGE/apps/demo/assets/$sha1" || true)
  if grep -qi '^content-encoding: zstd' <<<"$h" && grep -qi '^cache-control:.*immutable' <<<"$h"; then break; fi
  [ "$i" = 600 ] && { log "update 1's encoded copies never appeared"; exit 1; }
  sleep 0.2
done
# update 2's files uploaded (not published); the trigger's body is what `updraft publish` would send
python3 - "$U2" "$work/publish.json" <<'EOF'
import hashlib, json, os, sys
dist, out = sys.argv[1], sys.argv[2]
meta = json.load(open(os.path.join(dist, "metadata.json")))
files = {}
for p in ("ios", "android"):
    e = meta["fileMetadata"][p]
    for path in [e["bundle"]] + [a["path"] for a in e.get("assets", [])]:
        b = open(os.path.join(dist, path), "rb").read()
        files[path] = {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
body = {"branch": "production", "runtimeVersion": "1.0.0", "metadata": meta, "files": files,
        "expoConfig": json.load(open(os.path.join(dist, "expoConfig.json"))), "idempotencyKey": "first-minute-bench"}
json.dump(body, open(out, "w"))
EOF
python3 - "$U2" "$work/publish.json" > "$work/uploads.txt" <<'EOF'
import json, os, sys
body = json.load(open(sys.argv[2]))
for path, f in body["files"].items():
    print(f["sha256"], os.path.join(sys.argv[1], path), "application/javascript" if path.endswith((".hbc", ".js")) else "image/png")
EOF
while read -r sha file type; do
  curl -fsS -o /dev/null -X PUT -H "authorization: Bearer $TOKEN" -H "content-type: $type" --data-binary "@$file" \
    "$SERVER/v1/apps/demo/assets/$sha"
done < "$work/uploads.txt"
log "$LABEL: update 1 settled, update 2 uploaded; storm (scale ${SCALE:-0.1}, time scale ${TIME_SCALE:-0.16}) publishing update 2"
set +e
./updraft load run --name "$NAME" --profile storm --scale "${SCALE:-0.1}" --time-scale "${TIME_SCALE:-0.16}" \
  --target http://127.0.0.1:$EDGE --app demo --channels production --runtime-versions 1.0.0 --up-to-date 1.0 \
  --assets --out-dir "$work" --metrics edge=http://127.0.0.1:$EDGE/metrics \
  --trigger-url $SERVER/v1/apps/demo/updates --trigger-method POST --trigger-token $TOKEN \
  --trigger-body "@$work/publish.json" > "$work/run.out" 2>&1
status=$?
set -e
log "$LABEL: exit $status"; tail -n 6 "$work/run.out" >&2
cp "$work/$NAME-summary.json" "$OUT/"
cp "$work/run.out" "$OUT/$NAME.txt"
curl -fs http://127.0.0.1:$EDGE/metrics | grep -E "^updraft_edge_(patch|asset)" > "$OUT/$NAME-edge-metrics.txt" || true
grep -E "patches: group|interim" "$work/dev.log" > "$OUT/$NAME-control-log.txt" || true
kill $dev; wait $dev 2>/dev/null || true
trap - EXIT
rm -rf "$data"
log "done: $OUT/$NAME-summary.json"
