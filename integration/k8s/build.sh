#!/usr/bin/env bash
# Builds the Kubernetes binaries the test cluster runs (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubelet, kubectl) from the Go module
# proxy into a cache outside the checkout, keyed by version. Skipped when the
# cache already holds them all. About 7.5 min on 2 cores the first time.
#
# Usage: integration/k8s/build.sh        (prints the binary directory)
set -euo pipefail
source "$(dirname "$0")/env.sh"

components=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)

have_all() {
  local c
  for c in "${components[@]}"; do [ -x "$K8S_BIN/$c" ] || return 1; done
}

if have_all; then
  echo "$K8S_BIN"
  exit 0
fi

# A throwaway module: k8s.io/kubernetes requires its staging modules at
# v0.0.0 and replaces them with ./staging, which only works inside its own
# tree; here each is replaced by the published v0.<minor>.<patch>.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
staging_version="v0.${K8S_VERSION#v1.}"
cd "$work"
go mod init tandem-k8s-build >/dev/null 2>&1
gomod=$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",*/\1/p')
{
  echo "require k8s.io/kubernetes $K8S_VERSION"
  grep -oE '^\s*k8s\.io/[a-z0-9-]+ => \./staging' "$gomod" |
    awk -v v="$staging_version" '{ print "replace " $1 " => " $1 " " v }'
} >>go.mod

# Both version packages, as Kubernetes' own build sets them: 1.27's API
# server reports client-go's in /version.
ldflags="-s -w"
for kv in "gitVersion=$K8S_VERSION" gitMajor=1 "gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2)" \
  gitTreeState=clean "buildDate=1970-01-01T00:00:00Z"; do
  ldflags+=" -X k8s.io/component-base/version.$kv -X k8s.io/client-go/pkg/version.$kv"
done

packages=()
for c in "${components[@]}"; do packages+=("k8s.io/kubernetes/cmd/$c"); done

echo "building ${components[*]} $K8S_VERSION into $K8S_BIN (about 7.5 min on 2 cores)" >&2
start=$(date +%s)
mkdir -p "$K8S_BIN.partial"
CGO_ENABLED=0 GOFLAGS=-mod=mod go build -p "$(nproc)" -trimpath -ldflags "$ldflags" \
  -o "$K8S_BIN.partial/" "${packages[@]}" >&2
rm -rf "$K8S_BIN"
mv "$K8S_BIN.partial" "$K8S_BIN"
echo "built in $(($(date +%s) - start)) s" >&2
echo "$K8S_BIN"
