#!/usr/bin/env bash
# Installs Debian's Chromium and its WebDriver for the console's browser test (console-tests,
# ConsoleBrowserIT), which is skipped where /usr/bin/chromium or /usr/bin/chromedriver is missing.
# Idempotent: does nothing when both are there. Needs root (CI and the dev machines run as root);
# without root it uses sudo when present.
set -euo pipefail

if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
  echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) already installed"
  exit 0
fi

SUDO=""
if [[ "$(id -u)" != "0" ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-browser: not root and no sudo: install chromium and chromium-driver by hand" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver

if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
  echo "install-browser: apt-get finished but /usr/bin/chromium or /usr/bin/chromedriver is missing" >&2
  exit 1
fi
echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) installed"
