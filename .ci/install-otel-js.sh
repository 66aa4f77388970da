#!/usr/bin/env bash
# Installs the OpenTelemetry JS SDK (logs and traces, with their OTLP/HTTP exporters, JSON and protobuf) from npm
# once into a cache outside the repository, ~/.cache/updraft/otel-js (or $UPDRAFT_OTEL_JS_HOME): OtlpErrorsIT runs a
# small Node script with it against a live edge, as an app would report its errors. Versions are pinned.
# Idempotent: does nothing when the pinned set is installed. Needs node and npm; fails without them.
set -euo pipefail

PACKAGES=(
  "@opentelemetry/api@1.10.0"
  "@opentelemetry/resources@3.1.1"
  "@opentelemetry/sdk-logs@3.1.1"
  "@opentelemetry/exporter-logs-otlp-http@0.301.2"
  "@opentelemetry/exporter-logs-otlp-proto@0.301.2"
  "@opentelemetry/sdk-trace@3.1.1"
  "@opentelemetry/exporter-trace-otlp-http@0.301.2"
)
HOME_DIR="${UPDRAFT_OTEL_JS_HOME:-$HOME/.cache/updraft/otel-js}"
STAMP="$HOME_DIR/.installed"
WANT="$(printf '%s\n' "${PACKAGES[@]}")"

if [[ -f "$STAMP" ]] && [[ "$(cat "$STAMP")" == "$WANT" ]]; then
  echo "install-otel-js: the pinned OpenTelemetry JS packages are installed in $HOME_DIR"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-otel-js: npm not found: install Node.js 18+ (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
mkdir -p "$HOME_DIR"
cd "$HOME_DIR"
[[ -f package.json ]] || echo '{"name":"updraft-otel-js","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error "${PACKAGES[@]}"
for p in sdk-logs exporter-logs-otlp-http exporter-logs-otlp-proto sdk-trace exporter-trace-otlp-http resources; do
  if [[ ! -f "node_modules/@opentelemetry/$p/package.json" ]]; then
    echo "install-otel-js: npm finished but @opentelemetry/$p is missing in $HOME_DIR" >&2
    exit 1
  fi
done
printf '%s' "$WANT" > "$STAMP"
echo "install-otel-js: OpenTelemetry JS installed in $HOME_DIR"
