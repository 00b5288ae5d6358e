#!/usr/bin/env bash
# `make e2e-k8s`: brings the cluster up, runs the Go tests of this folder
# (build tag k8s) against it, and tears it down whatever happened.
# Without the tools it needs, it skips, unless TANDEM_K8S_REQUIRED is set
# (CI), where that is a failure.
# Usage: integration/k8s/e2e.sh TANDEM_BINARY [go test flags...]
# TANDEM_K8S_TAGS: the build tags (k8s; `make bench-k8s` adds k8sbench,
# the side-by-side start figures, which never fail and so are not CI's).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The release of TANDEM_K8S_VERSION, else the default: never that of a
# cluster left up, which this run tears down.
source "$here/env.sh"
export TANDEM_K8S_VERSION=${TANDEM_K8S_VERSION:-$K8S_DEFAULT_VERSION}
source "$here/lib.sh"
tandem=$(readlink -f "$1")
shift

if ! missing=$("$here/check-tools.sh") || [ "$(id -u)" != 0 ]; then
  [ "$(id -u)" != 0 ] && missing="not root"
  [ -n "${TANDEM_K8S_REQUIRED:-}" ] && die "TANDEM_K8S_REQUIRED is set, but: $missing"
  say "skipping the Kubernetes tests: $missing"
  exit 0
fi

# One cluster per machine (its ports, bridge and state dir): a second run
# waits for the first instead of tearing its cluster down under it.
exec 9>/tmp/tandem-k8s.lock
if ! flock -n 9; then
  say "waiting for /tmp/tandem-k8s.lock: another make e2e-k8s runs on this machine"
  flock -w 1800 9 || die "/tmp/tandem-k8s.lock still held after 30 min"
fi

# down.sh failing (something left behind) fails the run too.
trap 'rc=$?; "$here/down.sh" 9>&- || rc=1; exit $rc' EXIT
start=$SECONDS
"$here/up.sh" 9>&- >/dev/null || exit 1
say "cluster of Kubernetes $K8S_VERSION on $K8S_RUNTIME up in $((SECONDS - start)) s"
cd "$here" || exit 1
start=$SECONDS
KUBECONFIG=$KUBECONFIG_ADMIN TANDEM_K8S_KUBECTL=$K8S_BIN/kubectl TANDEM_BIN=$tandem \
  go test -count=1 -tags "${TANDEM_K8S_TAGS:-k8s}" -timeout 45m -parallel 4 -v "$@" . 9>&-
rc=$?
say "tests (with the images) in $((SECONDS - start)) s"
exit $rc
