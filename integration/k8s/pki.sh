#!/usr/bin/env bash
# Makes the cluster's certificates with openssl, once: a CA, the
# apiserver's serving certificate, a client certificate (and kubeconfig) per
# component, and the service-account key pair. Usage: pki.sh
set -euo pipefail
source "$(dirname "$0")/env.sh"
mkdir -p "$K8S_PKI"
cd "$K8S_PKI"
[ -f sa.pub ] && exit 0

openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=tandem-k8s-ca" \
  -keyout ca.key -out ca.crt 2>/dev/null

# cert NAME SUBJECT [SAN]: a key and a certificate signed by the CA.
cert() {
  local ext=extendedKeyUsage=clientAuth
  [ -n "${3:-}" ] && ext=$'extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName='$3
  openssl req -newkey rsa:2048 -nodes -subj "$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile <(printf 'basicConstraints=CA:FALSE\n%s\n' "$ext") -out "$1.crt" 2>/dev/null
  rm "$1.csr"
}

# The first address of the service range is the kubernetes Service's;
# NODE_IP is where pods reach the API (the in-cluster webhook's test).
cert apiserver /CN=kube-apiserver \
  "IP:127.0.0.1,IP:$NODE_IP,IP:${SERVICE_CIDR%.0/*}.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
cert admin "/O=system:masters/CN=tandem-k8s-admin"
cert controller-manager /CN=system:kube-controller-manager
cert scheduler /CN=system:kube-scheduler
cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"

for user in admin controller-manager scheduler kubelet; do
  cat >"$user.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: tandem-k8s
    cluster:
      server: $APISERVER
      certificate-authority: $K8S_PKI/ca.crt
users:
  - name: $user
    user:
      client-certificate: $K8S_PKI/$user.crt
      client-key: $K8S_PKI/$user.key
contexts:
  - name: tandem-k8s
    context: {cluster: tandem-k8s, user: $user, namespace: default}
current-context: tandem-k8s
KUBECONFIG
done

openssl genrsa -out sa.key 2048 2>/dev/null
openssl rsa -in sa.key -pubout -out sa.pub.tmp 2>/dev/null
mv sa.pub.tmp sa.pub
