#!/usr/bin/env bash
# Builds Kueue's manager from the module the Go module proxy serves, into a
# cache outside the checkout, keyed by the release; skipped when the cache
# holds it. For the tests only. Static, without cgo, as Kueue's own image
# is; niced and two packages at a time, as the machine is shared.
#
# Usage: integration/k8s/build-kueue.sh   (prints the binary's path)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"

module=sigs.k8s.io/kueue
version=v0.17.0
dir=$K8S_CACHE/kueue-$version
# One build at a time (a test and CI's warm-up may both ask): a second
# waits for the first and finds its result.
mkdir -p "$K8S_CACHE"
exec 8>"$dir.lock"
flock 8
if [ -x "$dir/manager" ]; then
  echo "$dir/manager"
  exit 0
fi

echo "building Kueue $version into $dir" >&2
start=$(date +%s)
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
src=$(cd / && go mod download -json "$module@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "no directory for $module@$version in the module cache" >&2; exit 1; }
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
# The module cache's copy builds as it is: no overlay, nothing written there.
(cd "$src" && CGO_ENABLED=0 nice -n 10 go build -p 2 -trimpath -buildvcs=false \
  -ldflags "-s -w -X $module/pkg/version.GitVersion=$version" \
  -o "$dir.partial/manager" ./cmd/kueue) >&2
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "built in $(($(date +%s) - start)) s" >&2
echo "$dir/manager"
