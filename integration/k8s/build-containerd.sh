#!/usr/bin/env bash
# Builds containerd 2.x (the daemon, its runc shim and ctr) from its Go
# module into a cache outside the checkout, keyed by version, for the
# Kubernetes releases that no longer support Debian's containerd 1.6 (1.36
# and later: K8S_RUNTIME in env.sh). runc is Debian's. Skipped when the cache
# holds them all. The first build has not been timed on an idle machine
# (41 min at nice 19 on a 2-core machine loaded by other builds).
#
# Usage: integration/k8s/build-containerd.sh   (prints the binary directory)
set -euo pipefail
source "$(dirname "$0")/env.sh"

version=$CONTAINERD2_VERSION
bin=$CONTAINERD2_BIN
components=(containerd containerd-shim-runc-v2 ctr)

have_all() {
  local c
  for c in "${components[@]}"; do [ -x "$bin/$c" ] || return 1; done
}

if have_all; then
  echo "$bin"
  exit 0
fi

# Its go.mod has no replace directives, so the module builds as a
# dependency of a throwaway module (as build.sh does for Kubernetes), which
# keeps the -o of one go build for the three.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
go mod init tandem-containerd-build >/dev/null 2>&1
echo "require github.com/containerd/containerd/v2 $version" >>go.mod

module=github.com/containerd/containerd/v2
ldflags="-s -w -X $module/version.Version=$version -X $module/version.Revision=module-proxy"
packages=()
for c in "${components[@]}"; do packages+=("$module/cmd/$c"); done

echo "building ${components[*]} $version into $bin" >&2
start=$(date +%s)
mkdir -p "$bin.partial"
# Static, without cgo: the btrfs snapshotter (cgo only) is left out, and
# devmapper and zfs, which the cluster does not use.
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -p "$(nproc)" -trimpath -tags "no_btrfs no_devmapper no_zfs" \
  -ldflags "$ldflags" -o "$bin.partial/" "${packages[@]}" >&2
rm -rf "$bin"
mv "$bin.partial" "$bin"
echo "built in $(($(date +%s) - start)) s" >&2
echo "$bin"
