#!/usr/bin/env bash
# Builds Argo Workflows' workflow-controller and argoexec from the module
# the Go module proxy serves, into a cache outside the checkout, keyed by
# the release and by our overlay; skipped when the cache holds them. For the
# tests only: the release has security reports against it, never ship it.
# The served module lacks the executor's Linux signal file: argo/ supplies
# ours through `go build -overlay`, the module left as served (copied out of
# the module cache first, where go refuses an overlay). Static,
# without cgo, as Argo's own images are; niced and two packages at a time,
# as the machine is shared.
#
# Usage: integration/k8s/build-argo.sh   (prints the directory of both)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"

module=github.com/argoproj/argo-workflows/v4
version=v4.0.5
overlay=$here/argo/signal_linux.go.overlay
key=$(sha256sum "$overlay" | cut -c1-12)
dir=$K8S_CACHE/argo-$version-$key
# One build at a time (a test and CI's warm-up may both ask): a second
# waits for the first and finds its result.
mkdir -p "$K8S_CACHE"
exec 8>"$dir.lock"
flock 8
if [ -x "$dir/workflow-controller" ] && [ -x "$dir/argoexec" ]; then
  echo "$dir"
  exit 0
fi

echo "building Argo Workflows $version into $dir" >&2
start=$(date +%s)
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
src=$(cd / && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "no directory for $module@$version in the module cache" >&2; exit 1; }
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
cp -r "$src" "$dir.partial/src"
chmod -R u+w "$dir.partial/src"
src=$dir.partial/src
printf '{"Replace": {"%s": "%s"}}\n' "$src/workflow/executor/osspecific/signal_linux.go" "$overlay" \
  >"$dir.partial/overlay.json"
for cmd in workflow-controller argoexec; do
  (cd "$src" && CGO_ENABLED=0 nice -n 10 go build -p 2 -trimpath -buildvcs=false \
    -overlay "$dir.partial/overlay.json" -ldflags "-s -w -X $module.version=$version" \
    -o "$dir.partial/$cmd" "./cmd/$cmd") >&2
done
rm -rf "$src" "$dir.partial/overlay.json" "$dir"
mv "$dir.partial" "$dir"
echo "built in $(($(date +%s) - start)) s" >&2
echo "$dir"
