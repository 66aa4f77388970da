#!/usr/bin/env bash
# Installs kubectl (its built-in kustomize renders infra/k8s/base and infra/k8s/overlays/production in
# system-tests' KustomizeOverlaysTest, which fails in CI without it). Idempotent: does nothing when a
# kubectl that can run `kubectl kustomize` is on the PATH. Otherwise installs Debian's kubernetes-client
# (kubectl 1.20 with kustomize 2.0: the overlays are written so that it renders them as kustomize 5 does).
# Needs root (CI and the dev machines run as root); without root it uses sudo when present. Fails when it
# cannot install it.
set -euo pipefail

if command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
  echo "install-kubectl: $(command -v kubectl) already installed"
  exit 0
fi

# shellcheck source=.ci/apt-install.sh
source "$(dirname "$0")/apt-install.sh"
apt_install install-kubectl kubernetes-client

if ! kubectl kustomize --help >/dev/null 2>&1; then
  echo "install-kubectl: apt-get finished but kubectl kustomize does not run" >&2
  exit 1
fi
echo "install-kubectl: $(command -v kubectl) installed"
