#!/usr/bin/env bash
# Installs Debian's PostgreSQL client programs (pg_dump, pg_restore, psql): PostgresDumpIT (system-tests) backs
# the telemetry database up and restores it with them, as docs/operations.md tells operators to. Idempotent:
# does nothing when pg_dump and pg_restore are there. Needs root (CI and the dev machines run as root); without
# root it uses sudo when present. Fails when it cannot install them.
set -euo pipefail

if command -v pg_dump >/dev/null 2>&1 && command -v pg_restore >/dev/null 2>&1; then
  echo "install-pg-client: $(pg_dump --version) already installed"
  exit 0
fi

# shellcheck source=.ci/apt-install.sh
source "$(dirname "$0")/apt-install.sh"
apt_install install-pg-client postgresql-client

for tool in pg_dump pg_restore; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install-pg-client: apt-get finished but $tool is missing" >&2
    exit 1
  fi
done
echo "install-pg-client: $(pg_dump --version) installed"
