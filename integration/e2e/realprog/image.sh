#!/usr/bin/env bash
# image.sh: the image of the real-program e2e tests, and its tag on stdout.
#
#     flock /tmp/podman.lock integration/e2e/realprog/image.sh [TANDEM_BIN [TAG]]
#
# The Debian rootfs (rootfs.sh, cached) is imported once per rootfs as
# localhost/tandem-e2e/realprog-rootfs:HASH; on top of it a build with no RUN
# copies tandem (default bin/tandem) and files/ in. Needs root and podman.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tandem=${1:-bin/tandem}
tag=${2:-localhost/tandem-e2e/realprog:test}
base_repo=localhost/tandem-e2e/realprog-rootfs

tar=$("$here/rootfs.sh")
hash=$(basename "$tar" .tar)
base=$base_repo:${hash#rootfs-}
if ! podman image exists "$base"; then
  echo "image.sh: importing $tar as $base" >&2
  podman import --quiet "$tar" "$base" >/dev/null
  # The bases of older rootfs builds; fails harmlessly while one is in use.
  podman images --format '{{.Repository}}:{{.Tag}}' "$base_repo" | grep -vxF "$base" |
    xargs -r podman rmi >/dev/null 2>&1 || true
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
install -m 0755 "$tandem" "$ctx/tandem"
cp -r "$here/files" "$ctx/files"
previous=$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
podman build --quiet --build-arg BASE="$base" -f "$here/Containerfile" -t "$tag" "$ctx" >/dev/null
current=$(podman image inspect --format '{{.Id}}' "$tag")
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  # The image of the previous tandem binary; kept while a container uses it.
  podman rmi "$previous" >/dev/null 2>&1 || true
fi
echo "$tag"
