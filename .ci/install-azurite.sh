#!/usr/bin/env bash
# Installs Azurite (Microsoft's Azure Storage emulator, from npm) once into a cache outside the repository,
# ~/.cache/updraft/azurite (or $UPDRAFT_AZURITE_HOME): the Azure Blob Storage tests (control-plane,
# AzuriteAssetStorageIT and AzureStorageIT) start its blob service as a process on a free loopback port.
# Idempotent: does nothing when the pinned version is installed. Needs node and npm; fails without them.
set -euo pipefail

VERSION="3.37.0"
HOME_DIR="${UPDRAFT_AZURITE_HOME:-$HOME/.cache/updraft/azurite}"
BIN="$HOME_DIR/node_modules/.bin/azurite-blob"

if [[ -x "$BIN" ]] && grep -q "\"version\": \"$VERSION\"" "$HOME_DIR/node_modules/azurite/package.json" 2>/dev/null; then
  echo "install-azurite: azurite $VERSION already installed in $HOME_DIR"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "install-azurite: npm not found: install Node.js 18+ (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
mkdir -p "$HOME_DIR"
cd "$HOME_DIR"
[[ -f package.json ]] || echo '{"name":"updraft-azurite","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error "azurite@$VERSION"
if [[ ! -x "$BIN" ]]; then
  echo "install-azurite: npm finished but $BIN is missing" >&2
  exit 1
fi
echo "install-azurite: azurite $VERSION installed in $HOME_DIR"
