#!/usr/bin/env bash
# Sourced by the .ci/install-*.sh scripts: `apt_install WHO PACKAGE...` installs Debian packages as root, or
# through sudo when not root, and fails with a line naming WHO and the packages when it cannot. The package
# index is refreshed at most once per CI run (the first caller marks it under /tmp).

apt_install() {
  local who="$1"
  shift
  local sudo=""
  if [[ "$(id -u)" != "0" ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "$who: not root and no sudo: install $* by hand" >&2
      return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  local marker="/tmp/updraft-apt-updated-$(date +%Y%m%d%H)"
  if [[ ! -e "$marker" ]]; then
    $sudo apt-get update -q
    touch "$marker" 2>/dev/null || true
  fi
  $sudo apt-get install -y -q --no-install-recommends "$@"
}
