#!/usr/bin/env bash
# Brings up a single-node Kubernetes on this machine: etcd, containerd (our
# own instance), kube-apiserver, kube-controller-manager, kube-scheduler and
# a kubelet, all on loopback and on the pods' own bridge. Idempotent: what
# already runs is left alone. Needs root. Tear down with down.sh.
#
# Usage: integration/k8s/up.sh      then: export KUBECONFIG=... (printed)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/configs.sh"

[ "$(id -u)" = 0 ] || die "run as root: the kubelet and containerd need it"
missing=$("$here/check-tools.sh") || die "$missing"
"$here/build.sh" >/dev/null
[ "$K8S_RUNTIME" = containerd1 ] || "$here/build-containerd.sh" >/dev/null
"$here/pki.sh"
mkdir -p "$K8S_STATE/run" "$K8S_LOG"

# What down.sh must put back as it was, saved once per bring-up.
if [ ! -f "$K8S_STATE/run/sysctl.saved" ]; then
  # A fresh bring-up: the logs of the last one go.
  rm -f "$K8S_LOG"/*.log
  for key in "${SAVED_SYSCTLS[@]}"; do
    echo "$key=$(sysctl -n "$key")"
  done >"$K8S_STATE/run/sysctl.saved"
  for table in filter nat mangle raw; do
    iptables -t "$table" -S >"$K8S_STATE/run/iptables-$table.saved" 2>/dev/null || true
  done
  # Paths the kubelet makes whatever its flags say (its log links, its
  # device-plugin socket), and down.sh removes when they were not there.
  for path in "${SYSTEM_PATHS[@]}"; do
    [ -e "$path" ] || echo "$path"
  done >"$K8S_STATE/run/created-paths"
  echo "$K8S_VERSION" >"$K8S_STATE/run/version"
elif [ "$(cat "$K8S_STATE/run/version")" != "$K8S_VERSION" ]; then
  die "a cluster of $(cat "$K8S_STATE/run/version") is up: down.sh first"
fi
say "Kubernetes $K8S_VERSION on $K8S_RUNTIME ($("$CONTAINERD" --version | awk '{print $3}'))"
write_configs

start etcd etcd --name "$NODE_NAME" --data-dir "$K8S_STATE/etcd" \
  --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
  --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
  --initial-cluster "$NODE_NAME=http://127.0.0.1:2380"
start containerd "$CONTAINERD" --config "$K8S_STATE/etc/containerd.toml"
await etcd 60 etcdctl --endpoints http://127.0.0.1:2379 endpoint health

# The pods' bridge first: it carries the node's address, where the API
# listens and the kubelet too.
if ! ip link show "$POD_BRIDGE" >/dev/null 2>&1; then
  ip link add "$POD_BRIDGE" type bridge
  ip addr add "$NODE_IP/${POD_CIDR#*/}" dev "$POD_BRIDGE"
  ip link set "$POD_BRIDGE" up
fi

pki=$K8S_PKI
# Bound to the bridge's address (not every interface) so that pods reach it
# at NODE_IP (an in-cluster webhook calls the API); --enable-aggregator-
# routing: it calls admission webhooks at their Service's endpoint (the pod
# IP), as there is no kube-proxy to route ClusterIPs.
start kube-apiserver "$K8S_BIN/kube-apiserver" \
  --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port=6443 --enable-aggregator-routing=true \
  --etcd-servers=http://127.0.0.1:2379 \
  --client-ca-file="$pki/ca.crt" --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --kubelet-client-certificate="$pki/apiserver-kubelet-client.crt" --kubelet-client-key="$pki/apiserver-kubelet-client.key" \
  --kubelet-preferred-address-types=InternalIP \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$pki/sa.pub" \
  --service-account-signing-key-file="$pki/sa.key" --service-cluster-ip-range="$SERVICE_CIDR" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --allow-privileged=true \
  --cert-dir="$K8S_STATE/apiserver" --profiling=false
await kube-apiserver 120 kubectl_admin get --raw /readyz

# The cloud and node-IPAM controllers off (no cloud; the kubelet has its
# range). The service load-balancer controller's name before 1.28 is
# "service"; later releases keep it as an alias only of some; from 1.37 the
# cloud controllers are in the cloud-controller-manager alone, and naming
# them is an error.
controllers='*,-nodeipam,-service-lb-controller,-cloud-node-lifecycle,-route'
[ "$K8S_MINOR" -ge 28 ] || controllers='*,-nodeipam,-service,-cloud-node-lifecycle,-route'
[ "$K8S_MINOR" -lt 37 ] || controllers='*,-nodeipam'
start kube-controller-manager "$K8S_BIN/kube-controller-manager" \
  --kubeconfig="$pki/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$pki/controller-manager.kubeconfig" \
  --authorization-kubeconfig="$pki/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" \
  --controllers="$controllers" \
  --flex-volume-plugin-dir="$K8S_STATE/controller-manager/volume-plugins" \
  --cert-dir="$K8S_STATE/controller-manager" --profiling=false
start kube-scheduler "$K8S_BIN/kube-scheduler" \
  --kubeconfig="$pki/scheduler.kubeconfig" \
  --authentication-kubeconfig="$pki/scheduler.kubeconfig" \
  --authorization-kubeconfig="$pki/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --leader-elect=false \
  --cert-dir="$K8S_STATE/scheduler" --profiling=false

await containerd 60 "$CTR" --address "$CONTAINERD_SOCK" version
"$here/pause-image.sh"

start kubelet "$K8S_BIN/kubelet" --config="$K8S_STATE/etc/kubelet.yaml" \
  --kubeconfig="$pki/kubelet.kubeconfig" --root-dir="$K8S_STATE/kubelet" \
  --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --cert-dir="$K8S_STATE/kubelet/pki"
await kubelet 120 kubectl_admin wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s
await kube-controller-manager 60 kubectl_admin get serviceaccount default -n default
await kube-scheduler 60 curl -fsk https://127.0.0.1:10259/healthz

say "cluster up: node $NODE_NAME Ready"
cat <<ENV
export KUBECONFIG=$KUBECONFIG_ADMIN
export PATH=$K8S_BIN:\$PATH
ENV
