#!/usr/bin/env bash
# Prints what this machine lacks to run the cluster, with the Debian
# package that has it, and fails; prints nothing when all is there.
set -uo pipefail
need=()
for pair in etcd:etcd-server etcdctl:etcd-client containerd:containerd ctr:containerd runc:runc \
  openssl:openssl iptables:iptables podman:podman catatonit:catatonit curl:curl findmnt:util-linux \
  flock:util-linux ip:iproute2; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
[ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] ||
  need+=(containernetworking-plugins)
# The test image needs a static busybox (FROM scratch has no libc): ldd
# fails on a static binary.
[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || need+=(busybox-static)
command -v go >/dev/null || need+=("Go (/usr/local/go)")
if [ ${#need[@]} -gt 0 ]; then
  echo "missing: ${need[*]} (apt-get install -y ${need[*]})"
  exit 1
fi
