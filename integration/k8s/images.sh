#!/usr/bin/env bash
# Builds the images the tests' pods run, with podman, and imports them into
# the cluster's containerd (nothing is pulled):
#   localhost/tandem-k8s/tandem:test  Dockerfile.scratch: the binary alone
#   localhost/tandem-k8s/tools:test   busybox (static, with its applet
#                                     links), tandem on the PATH and at
#                                     /tandem, and the e2e tests' standin
#   localhost/tandem-k8s/tools-quit:test  the tools with STOPSIGNAL SIGQUIT,
#                                     as nginx's image: containerd sends
#                                     SIGQUIT, not SIGTERM, on pod deletion
#   localhost/tandem-k8s/fluent/fluent-bit:5.1.1  the tools under a name
#                                     the fluent-bit preset knows: a sidecar
#                                     by its image alone (TestPolicy…)
# The first two are the images of integration/e2e, under the cluster's names.
# Usage: integration/k8s/images.sh [TANDEM_BINARY]   (default bin/tandem)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
tandem=$(readlink -f "${1:-$root/bin/tandem}")
[ -x "$tandem" ] || die "no tandem binary at $tandem (make build)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tandem/bin" "$work/tools"
cp "$tandem" "$work/tandem/bin/tandem"
"$here/import-image.sh" localhost/tandem-k8s/tandem:test "$root/Dockerfile.scratch" "$work/tandem"

(cd "$root/integration/e2e" && CGO_ENABLED=0 go build -trimpath -o "$work/tools/standin" ./standin)
cp "$tandem" "$work/tools/tandem"
cp /bin/busybox "$work/tools/busybox"
"$here/import-image.sh" localhost/tandem-k8s/tools:test "$root/integration/kit/tools.Containerfile" "$work/tools"
mkdir "$work/quit"
printf 'FROM localhost/tandem-k8s/tools:test\nSTOPSIGNAL SIGQUIT\n' >"$work/quit/Containerfile"
"$here/import-image.sh" localhost/tandem-k8s/tools-quit:test "$work/quit/Containerfile" "$work/quit"
mkdir "$work/preset"
printf 'FROM localhost/tandem-k8s/tools:test\n' >"$work/preset/Containerfile"
"$here/import-image.sh" localhost/tandem-k8s/fluent/fluent-bit:5.1.1 "$work/preset/Containerfile" "$work/preset"
say "images imported in $SECONDS s (podman's lock included): localhost/tandem-k8s/{tandem,tools,tools-quit}:test, localhost/tandem-k8s/fluent/fluent-bit:5.1.1"
