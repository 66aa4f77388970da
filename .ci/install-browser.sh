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

# shellcheck source=.ci/apt-install.sh
source "$(dirname "$0")/apt-install.sh"
apt_install install-browser chromium chromium-driver

if [[ ! -x /usr/bin/chromium || ! -x /usr/bin/chromedriver ]]; then
  echo "install-browser: apt-get finished but /usr/bin/chromium or /usr/bin/chromedriver is missing" >&2
  exit 1
fi
echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) installed"
