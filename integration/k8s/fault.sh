#!/usr/bin/env bash
# The node's own faults, for the Fault tests: a component of the running
# cluster stopped as its service manager would stop it (SIGTERM, then
# SIGKILL after 15 s), and started again with the command line up.sh gives
# it. Containers keep running meanwhile: their shims are not children of
# containerd or the kubelet.
#
# Usage: integration/k8s/fault.sh stop NAME     (containerd, kubelet, kube-apiserver)
#        integration/k8s/fault.sh start NAME    returns once NAME answers again
#        integration/k8s/fault.sh restart NAME
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

# healthy NAME: the component answers its own health check, not only that
# the process exists (a restarted kubelet's node stays Ready for its lease).
healthy() {
  case $1 in
  containerd) ctr --address "$CONTAINERD_SOCK" version ;;
  kubelet) curl -fs http://127.0.0.1:10248/healthz ;;
  kube-apiserver) kubectl_admin get --raw /readyz ;;
  *) die "fault.sh: unknown component $1: expected containerd, kubelet or kube-apiserver" ;;
  esac
}

[ $# = 2 ] || die "usage: fault.sh stop|start|restart containerd|kubelet|kube-apiserver"
action=$1 name=$2
case $name in
containerd | kubelet | kube-apiserver) ;;
*) die "fault.sh: unknown component $name: expected containerd, kubelet or kube-apiserver" ;;
esac
case $action in
stop | restart)
  running "$name" || die "fault.sh: $name is not running"
  stop "$name"
  ;;&
start | restart)
  # up.sh starts what is not running and leaves the rest alone.
  "$here/up.sh" >/dev/null
  await "$name" 120 healthy "$name"
  say "$name answers again"
  ;;
stop) ;;
*) die "fault.sh: unknown action $action: expected stop, start or restart" ;;
esac
