#!/usr/bin/env bash
# Installs promtool (system-tests' AlertRulesTest checks infra/prometheus/rules.yml and alerts.yml with
# `promtool check rules` and runs their unit tests, infra/prometheus/rules.test.yml, with `promtool test rules`;
# it fails in CI without it). Idempotent: does nothing when promtool is on the PATH. Otherwise takes promtool
# alone out of Debian's prometheus package (downloaded, unpacked under /opt/updraft-promtool, never installed,
# so no Prometheus service is set up or started) and links it into /usr/local/bin. Needs root (or sudo).
set -euo pipefail

if command -v promtool >/dev/null 2>&1; then
  echo "install-promtool: $(command -v promtool) already installed"
  exit 0
fi
sudo=""
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else echo "install-promtool: not root and no sudo" >&2; exit 1; fi
fi
marker="/tmp/updraft-apt-updated-$(date +%Y%m%d%H)"
if [[ ! -e "$marker" ]]; then
  $sudo apt-get update -q
  touch "$marker" 2>/dev/null || true
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q prometheus)
$sudo mkdir -p /opt/updraft-promtool
$sudo dpkg-deb -x "$work"/prometheus_*.deb /opt/updraft-promtool
$sudo ln -sf /opt/updraft-promtool/usr/bin/promtool /usr/local/bin/promtool
if ! promtool --version >/dev/null 2>&1; then
  echo "install-promtool: unpacked, but promtool does not run" >&2
  exit 1
fi
echo "install-promtool: $(command -v promtool) installed ($(promtool --version 2>&1 | head -n 1))"
