#!/usr/bin/env bash
# Installs Debian's bsdiff (bspatch), zstd and brotli: the independent tools the bundle-patch and
# encoding tests (system-tests, BundlePatchIT) apply patches and decode answers with. Idempotent: does
# nothing when all three are there. Needs root (CI and the dev machines run as root); without root it
# uses sudo when present. Fails when it cannot install them.
set -euo pipefail

if [[ -x /usr/bin/bspatch && -x /usr/bin/zstd && -x /usr/bin/brotli ]]; then
  echo "install-decoders: bspatch, zstd and brotli already installed"
  exit 0
fi

SUDO=""
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-decoders: not root and no sudo: install bsdiff, zstd and brotli by hand" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends bsdiff zstd brotli

for tool in /usr/bin/bspatch /usr/bin/zstd /usr/bin/brotli; do
  if [[ ! -x "$tool" ]]; then
    echo "install-decoders: apt-get finished but $tool is missing" >&2
    exit 1
  fi
done
echo "install-decoders: bspatch, zstd and brotli installed"
