#!/usr/bin/env bash
# Builds an image with podman (under the machine's podman lock: podman is
# shared) and imports it into the cluster's containerd.
# Usage: import-image.sh TAG CONTAINERFILE CONTEXT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
tag=$1 file=$2 context=$3

# podman as on this machine's e2e tests: runc (crun fails on hybrid
# cgroups), rlimits no higher than the hard limits.
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
nproc=$(ulimit -Hu)
pid_max=$(cat /proc/sys/kernel/pid_max)
[ "$nproc" = unlimited ] || [ "$nproc" -gt "$pid_max" ] && nproc=$pid_max
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=$(cat /proc/sys/fs/nr_open)
printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n[engine]\nruntime = "runc"\n' \
  "$nofile" "$nofile" "$nproc" "$nproc" >"$conf"
export CONTAINERS_CONF=$conf

flock /tmp/podman.lock podman build --quiet -f "$file" -t "$tag" "$context" >/dev/null
# A docker-archive names the image by its tag, which ctr keeps.
flock /tmp/podman.lock podman save "$tag" | ctr_k8s images import - >/dev/null
ctr_k8s images ls -q | grep -xF "$tag" >/dev/null || die "image $tag not in containerd after import"
