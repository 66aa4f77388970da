#!/usr/bin/env bash
# Installs Debian's jq: the GitHub Action's script (.github/actions/publish/publish.sh) reads the CLI's JSON
# with it, as on GitHub's hosted runners, and PublishActionIT and FingerprintPublishIT run that script.
# Idempotent: does nothing when jq is there. Needs root, or sudo. Fails when it cannot install it.
set -euo pipefail

if command -v jq >/dev/null 2>&1; then
  echo "install-jq: $(command -v jq) already installed"
  exit 0
fi
SUDO=""
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-jq: not root and no sudo: install jq by hand" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends jq
command -v jq >/dev/null 2>&1 || { echo "install-jq: apt-get finished but jq is missing" >&2; exit 1; }
echo "install-jq: $(command -v jq) installed"
