#!/usr/bin/env bash
# The pods' sandbox ("pause") image: a static catatonit as PID 1 of the pod,
# FROM scratch, built with podman and imported into the cluster's
# containerd. Nothing is pulled. Skipped when containerd has it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

ctr_k8s images ls -q | grep -xF "$PAUSE_IMAGE" >/dev/null && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$(readlink -f "$(command -v catatonit)")" "$work/catatonit"
cat >"$work/Containerfile" <<'CONTAINERFILE'
FROM scratch
COPY catatonit /catatonit
# -P: a pause process for the pod's namespaces, reaping what it inherits.
ENTRYPOINT ["/catatonit", "-P"]
CONTAINERFILE
"$here/import-image.sh" "$PAUSE_IMAGE" "$work/Containerfile" "$work"
