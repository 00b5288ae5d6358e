# Sourced by up.sh: writes the configuration files of containerd, the CNI
# network and the kubelet into $K8S_STATE/etc.

# put FILE: stdin into FILE, replaced at once and only when it changed
# (containerd watches the CNI directory and would read half a file).
put() {
  cat >"$1.tmp"
  if cmp -s "$1.tmp" "$1"; then rm "$1.tmp"; else mv "$1.tmp" "$1"; fi
}

write_configs() {
  local etc=$K8S_STATE/etc
  mkdir -p "$etc/cni" "$K8S_STATE/cni/ipam" "$K8S_STATE/containerd"

  # containerd of our own (root, state, socket), CRI with runc and
  # cgroupfs. restrict_oom_score_adj: without CAP_SYS_RESOURCE runc cannot
  # set the -998 the CRI asks for. Network namespaces under the state dir,
  # so down.sh finds every one.
  if [ "$K8S_RUNTIME" = containerd2 ]; then
    containerd2_config | put "$etc/containerd.toml"
  else
    put "$etc/containerd.toml" <<TOML
version = 2
root = "$K8S_STATE/containerd/root"
state = "$K8S_STATE/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$K8S_STATE/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$K8S_STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$etc/cni"
TOML
  fi

  # One bridge with the gateway on the node, no masquerade: pod traffic
  # stays between the node and its pods. containerd adds loopback itself.
  put "$etc/cni/10-tandem-k8s.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "tandem-k8s",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$POD_BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR"}]],
        "dataDir": "$K8S_STATE/cni/ipam"
      }
    }
  ]
}
JSON

  # On loopback and the pods' bridge only; thresholds relaxed so that a full shared disk does not
  # evict the tests' pods; the kubelet leaves iptables alone.
  put "$etc/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $K8S_PKI/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
cgroupDriver: cgroupfs
failSwapOn: false
makeIPTablesUtilChains: false
$(kubelet_version_settings)
volumePluginDir: $K8S_STATE/kubelet/volume-plugins
evictionHard: {memory.available: 1Mi, nodefs.available: 1%, nodefs.inodesFree: 1%, imagefs.available: 1%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
YAML
}

# containerd2_config: the same instance for containerd 2.x, in its own
# configuration version 3 (the CRI plugin split into runtime and images;
# the sandbox image is a pinned image), the shim from the same build.
containerd2_config() {
  local etc=$K8S_STATE/etc
  cat <<TOML
version = 3
root = "$K8S_STATE/containerd/root"
state = "$K8S_STATE/containerd/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$K8S_STATE/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$K8S_STATE/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "$PAUSE_IMAGE"
[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      runtime_path = "$CONTAINERD2_BIN/containerd-shim-runc-v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$etc/cni"
TOML
}

# kubelet_version_settings: the kubelet configuration that depends on the
# release. podLogsDir (1.30+; before it, the logs go to /var/log/pods, in
# SYSTEM_PATHS). failCgroupV1: false from 1.35, whose kubelet refuses this
# host's cgroup v1 (hybrid) by default.
kubelet_version_settings() {
  [ "$K8S_MINOR" -ge 30 ] && echo "podLogsDir: $K8S_STATE/pod-logs"
  [ "$K8S_MINOR" -ge 35 ] && echo "failCgroupV1: false"
  true
}
