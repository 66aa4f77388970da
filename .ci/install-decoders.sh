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

# shellcheck source=.ci/apt-install.sh
source "$(dirname "$0")/apt-install.sh"
apt_install install-decoders bsdiff zstd brotli

for tool in /usr/bin/bspatch /usr/bin/zstd /usr/bin/brotli; do
  if [[ ! -x "$tool" ]]; then
    echo "install-decoders: apt-get finished but $tool is missing" >&2
    exit 1
  fi
done
echo "install-decoders: bspatch, zstd and brotli installed"
