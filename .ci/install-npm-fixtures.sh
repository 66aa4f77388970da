#!/usr/bin/env bash
# Installs the real minimal Expo project of fixtures/expo-fingerprint (its package.json pins expo and
# expo-updates from npm) outside the repository, in ${UPDRAFT_NPM_CACHE:-~/.cache/updraft}/expo-fingerprint:
# FingerprintPublishIT publishes from it with the fingerprint runtime version policy, which expo-updates'
# CLI resolves by hashing the project and its node_modules. Installs once: does nothing when the copy's
# package.json and app files equal the fixture's and node_modules/expo-updates is there (CI caches the
# directory between runs). Needs node and npm (on the machine image); fails when it cannot install.
set -euo pipefail
cd "$(dirname "$0")/.."

src=fixtures/expo-fingerprint
dest="${UPDRAFT_NPM_CACHE:-$HOME/.cache/updraft}/expo-fingerprint"
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "install-npm-fixtures: node and npm are needed (Debian: apt-get install nodejs npm)" >&2
  exit 1
fi
same=true
for f in package.json app.json index.js App.js; do
  cmp -s "$src/$f" "$dest/$f" || same=false
done
if [[ "$same" == true && -f "$dest/node_modules/expo-updates/bin/cli.js" ]]; then
  echo "install-npm-fixtures: $dest already installed"
  exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
cp "$src/package.json" "$src/app.json" "$src/index.js" "$src/App.js" "$dest/"
# no install scripts: the fingerprint needs the packages' files, not their native build steps
(cd "$dest" && npm install --no-audit --no-fund --ignore-scripts)
[[ -f "$dest/node_modules/expo-updates/bin/cli.js" ]] || { echo "install-npm-fixtures: expo-updates missing after npm install" >&2; exit 1; }
echo "install-npm-fixtures: $dest installed"
