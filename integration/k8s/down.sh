#!/usr/bin/env bash
# Tears the cluster down and leaves nothing of it behind: no process, mount,
# network namespace, bridge, iptables rule, cgroup or changed sysctl, even
# after a failed run or a killed up.sh. Safe to run at any time, twice.
# Keeps $K8S_STATE/log. Exits 1, naming it, when something is left.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/cleanup.sh"

[ "$(id -u)" = 0 ] || die "run as root"
[ -d "$K8S_STATE" ] || exit 0

# Controllers first, so nothing recreates the pods; then the kubelet stops
# the pods itself (its CNI DEL removes their network), bounded.
stop kube-controller-manager
stop kube-scheduler
if running kubelet && running kube-apiserver; then
  kubectl_admin delete pods --all --all-namespaces --force --grace-period=0 --wait=false >/dev/null 2>&1
  for _ in $(seq 60); do
    [ -z "$(ctr_k8s tasks ls -q 2>/dev/null)" ] && break
    sleep 0.5
  done
fi
stop kubelet
kill_containers
stop kube-apiserver
stop containerd
stop etcd
kill_leftover_processes
kill_pod_cgroups
unmount_state
delete_network
restore_sysctls
remove_files
check_nothing_left
