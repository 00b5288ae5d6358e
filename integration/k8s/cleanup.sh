# Sourced by down.sh: one function per kind of thing the cluster leaves.

# kill_containers: every task of the cluster's containerd, then the task
# and container records, so each shim exits on its own.
kill_containers() {
  running containerd || return 0
  local id
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do
    ctr_k8s tasks kill --all --signal SIGKILL "$id" >/dev/null 2>&1
  done
  for id in $(ctr_k8s tasks ls -q 2>/dev/null); do
    ctr_k8s tasks delete --force "$id" >/dev/null 2>&1
  done
  for id in $(ctr_k8s containers ls -q 2>/dev/null); do
    ctr_k8s containers delete "$id" >/dev/null 2>&1
  done
}

# ours: the cluster's programs whose command line names the state dir
# (every component, each shim by its containerd address); not a shell or a
# kubectl that merely mentions it.
ours() {
  local dir exe
  for dir in /proc/[0-9]*; do
    exe=$(readlink "$dir/exe" 2>/dev/null) || continue
    case ${exe##*/} in
      etcd | containerd | containerd-shim* | kube-apiserver | kube-controller-manager | kube-scheduler | kubelet) ;;
      *) continue ;;
    esac
    grep -qF -- "$K8S_STATE" "$dir/cmdline" 2>/dev/null && echo "${dir#/proc/}"
  done
}

kill_leftover_processes() {
  local pids
  pids=$(ours)
  [ -z "$pids" ] && return 0
  say "killing leftover processes: $(echo $pids)"
  kill -KILL $pids 2>/dev/null
  for _ in $(seq 50); do
    [ -z "$(ours)" ] && return 0
    sleep 0.1
  done
}

# Pods' cgroups: the kubelet puts them under kubepods in each hierarchy.
kill_pod_cgroups() {
  local root procs
  for root in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [ -d "$root" ] || continue
    for _ in $(seq 50); do
      procs=$(find "$root" -name cgroup.procs -exec cat {} + 2>/dev/null)
      [ -z "$procs" ] && break
      kill -KILL $procs 2>/dev/null
      sleep 0.1
    done
    find "$root" -depth -type d -exec rmdir {} + 2>/dev/null
  done
}

# Every mount under the state dir (overlay roots, shm, network namespaces,
# the kubelet's tmpfs volumes), deepest first.
unmount_state() {
  local target
  for _ in 1 2 3; do
    findmnt -rn -o TARGET | grep -F -- "$K8S_STATE" | sort -r | while read -r target; do
      umount "$target" 2>/dev/null || umount -l "$target" 2>/dev/null
    done
  done
}

# The bridge, the CNI plugins' result cache, and the iptables rules and
# chains that were not there before up.sh.
delete_network() {
  ip link show "$POD_BRIDGE" >/dev/null 2>&1 && ip link delete "$POD_BRIDGE"
  rm -f /var/lib/cni/results/tandem-k8s-*
  local table rule chain saved
  for table in filter nat mangle raw; do
    saved=$K8S_STATE/run/iptables-$table.saved
    [ -f "$saved" ] || continue
    iptables -t "$table" -S 2>/dev/null | grep -E -- "^-A .*($POD_BRIDGE|${POD_CIDR%.0/*}\.|KUBE-)" |
      while read -r rule; do
        grep -qxF -- "$rule" "$saved" || eval "iptables -t $table -D ${rule#-A }"
      done
    iptables -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-.*\)/\1/p' | while read -r chain; do
      grep -qxF -- "-N $chain" "$saved" || { iptables -t "$table" -F "$chain"; iptables -t "$table" -X "$chain"; }
    done
  done
}

restore_sysctls() {
  local saved=$K8S_STATE/run/sysctl.saved line
  [ -f "$saved" ] || return 0
  while read -r line; do
    [ "$(sysctl -n "${line%%=*}")" = "${line#*=}" ] || sysctl -q -w "$line"
  done <"$saved"
}

# Everything but the logs; the links the kubelet makes in /var/log/containers;
# the paths it made outside the state dir.
remove_files() {
  local link path
  for link in /var/log/containers/*; do
    [ -L "$link" ] && readlink "$link" | grep -F -- "$K8S_STATE" >/dev/null && rm -f "$link"
  done
  if [ -f "$K8S_STATE/run/created-paths" ]; then
    while read -r path; do
      case " ${SYSTEM_PATHS[*]} " in *" $path "*) rm -rf "$path" ;; esac
    done <"$K8S_STATE/run/created-paths"
  fi
  [ -n "$(findmnt -rn -o TARGET | grep -F -- "$K8S_STATE")" ] && return 0
  find "$K8S_STATE" -mindepth 1 -maxdepth 1 ! -name log -exec rm -rf {} +
}

check_nothing_left() {
  local left=() line
  [ -n "$(ours)" ] && left+=("processes: $(echo $(ours))")
  [ -n "$(findmnt -rn -o TARGET | grep -F -- "$K8S_STATE")" ] && left+=("mounts under $K8S_STATE")
  ip link show "$POD_BRIDGE" >/dev/null 2>&1 && left+=("bridge $POD_BRIDGE")
  ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1 && left+=("cgroups kubepods")
  iptables-save 2>/dev/null | grep -E -- "$POD_BRIDGE|KUBE-" >/dev/null && left+=("iptables rules")
  [ -e "$K8S_STATE/run" ] && left+=("$K8S_STATE/run (sysctls and paths not restored)")
  if [ ${#left[@]} -gt 0 ]; then
    say "left behind: ${left[*]}"
    exit 1
  fi
  say "cluster down; nothing left behind (logs in $K8S_LOG)"
}
