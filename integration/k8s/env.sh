# Sourced by the cluster scripts: names, paths and addresses. Every path can
# be overridden from the environment.
# The Kubernetes release: TANDEM_K8S_VERSION, else the one of the cluster
# that runs (up.sh records it, so down.sh alone tears it down with the right
# tools), else the default. The Makefile's K8S_VERSIONS lists those proved.
K8S_DEFAULT_VERSION=v1.37.2
K8S_VERSION=${TANDEM_K8S_VERSION:-$(cat "${TANDEM_K8S_STATE:-/var/lib/tandem-k8s}/run/version" 2>/dev/null ||
  echo $K8S_DEFAULT_VERSION)}
# Binaries built once per version, outside the checkout.
K8S_CACHE=${TANDEM_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tandem-k8s}
K8S_BIN=$K8S_CACHE/$K8S_VERSION
K8S_MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)
# The container runtime: Debian's containerd 1.6 up to 1.35, the last
# release that supports containerd 1.x; from 1.36 containerd 2.x built from
# its Go module (build-containerd.sh). (The 1.37 kubelet still falls back
# when the runtime lacks the CRI's RuntimeConfig, as 1.6 does, and says
# 1.38 will not.) TANDEM_K8S_RUNTIME=containerd1|containerd2 chooses
# another.
CONTAINERD2_VERSION=${TANDEM_CONTAINERD2_VERSION:-v2.4.2}
CONTAINERD2_BIN=$K8S_CACHE/containerd-$CONTAINERD2_VERSION
if [ -n "${TANDEM_K8S_RUNTIME:-}" ]; then
  K8S_RUNTIME=$TANDEM_K8S_RUNTIME
elif [ "$K8S_MINOR" -ge 36 ]; then
  K8S_RUNTIME=containerd2
else
  K8S_RUNTIME=containerd1
fi
if [ "$K8S_RUNTIME" = containerd2 ]; then
  CONTAINERD=$CONTAINERD2_BIN/containerd
  CTR=$CONTAINERD2_BIN/ctr
else
  CONTAINERD=containerd
  CTR=ctr
fi
# The running cluster: certificates, data, sockets, mounts. Wiped by down.sh
# except log/, which is kept for a look after a failed run.
K8S_STATE=${TANDEM_K8S_STATE:-/var/lib/tandem-k8s}
K8S_LOG=$K8S_STATE/log
K8S_PKI=$K8S_STATE/pki
KUBECONFIG_ADMIN=$K8S_PKI/admin.kubeconfig
CONTAINERD_SOCK=$K8S_STATE/containerd/containerd.sock
NODE_NAME=tandem-k8s
# The pods' own bridge and range; nothing is routed off the node.
POD_BRIDGE=tandemk8s0
POD_CIDR=10.244.77.0/24
# The bridge's own address: the node's (the kubelet refuses a loopback
# node IP), where the kubelet listens for the apiserver.
NODE_IP=10.244.77.1
SERVICE_CIDR=10.96.77.0/24
# The API on the bridge's address, not on every interface: the node and its
# pods reach it there (an in-cluster webhook calls it), nothing else does.
APISERVER=https://$NODE_IP:6443
PAUSE_IMAGE=localhost/tandem-k8s/pause:catatonit
# Kernel settings that the kubelet (and the bridge plugin: ip_forward)
# rewrites: saved by up.sh, put back by down.sh.
SAVED_SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops
  kernel.keys.root_maxkeys kernel.keys.root_maxbytes net.ipv4.ip_forward)
export PATH=/usr/local/go/bin:$PATH
# Paths outside the state dir that the kubelet makes all the same.
SYSTEM_PATHS=(/var/log/containers /var/lib/kubelet)
# Before 1.30 the kubelet has no podLogsDir: the pods' logs go there.
[ "$K8S_MINOR" -ge 30 ] || SYSTEM_PATHS+=(/var/log/pods)
