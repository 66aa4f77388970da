#!/usr/bin/env bash
# Installs Debian's jq: the GitHub Action's script (.github/actions/publish/publish.sh) reads the CLI's JSON
# with it, as on GitHub's hosted runners, and PublishActionIT and FingerprintPublishIT run that script.
# Idempotent: does nothing when jq is there. Needs root, or sudo. Fails when it cannot install it.
set -euo pipefail

if command -v jq >/dev/null 2>&1; then
  echo "install-jq: $(command -v jq) already installed"
  exit 0
fi
# shellcheck source=.ci/apt-install.sh
source "$(dirname "$0")/apt-install.sh"
apt_install install-jq jq
command -v jq >/dev/null 2>&1 || { echo "install-jq: apt-get finished but jq is missing" >&2; exit 1; }
echo "install-jq: $(command -v jq) installed"
