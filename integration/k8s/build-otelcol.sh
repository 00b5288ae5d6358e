#!/usr/bin/env bash
# Builds the OpenTelemetry Collector of otelcol/ (its own Go module: the
# collector's dependencies stay out of tandem's) into a cache outside the
# checkout, keyed by the contrib release and by the module's own files, as
# build.sh does for Kubernetes. Skipped when the cache holds it. Static,
# without cgo, as the collector's own release is.
#
# Usage: integration/k8s/build-otelcol.sh   (prints the binary's path)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"

module=$here/otelcol
# The release every contrib module of go.mod is at (one release for all).
version=$(awk '/opentelemetry-collector-contrib\/exporter\/fileexporter /{print $2}' "$module/go.mod")
[ -n "$version" ] || { echo "no fileexporter release in $module/go.mod" >&2; exit 1; }
key=$(cat "$module/go.mod" "$module/go.sum" "$module/main.go" | sha256sum | cut -c1-12)
dir=$K8S_CACHE/otelcol-$version-$key
if [ -x "$dir/otelcol" ]; then
  echo "$dir/otelcol"
  exit 0
fi

echo "building the collector $version into $dir" >&2
start=$(date +%s)
rm -rf "$dir.partial"
mkdir -p "$dir.partial"
(cd "$module" && CGO_ENABLED=0 go build -p "$(nproc)" -trimpath \
  -ldflags "-s -w -X main.version=${version#v}" -o "$dir.partial/otelcol" .) >&2
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "built in $(($(date +%s) - start)) s" >&2
echo "$dir/otelcol"
