// Package k8s plays tandem's Jobs on a real single-node Kubernetes (build
// tag k8s; `make e2e-k8s`): the kubelet, Job controller, native sidecars,
// restartPolicy OnFailure, termination messages and postStart hooks that
// `podman kube play` does not have.
//
// The cluster is this folder's scripts: build.sh (the Kubernetes binaries,
// from the Go module proxy, cached outside the checkout), up.sh, down.sh,
// images.sh (the test images, built with podman and imported into the
// cluster's containerd), fault.sh (containerd, the kubelet or the API
// server stopped and started again, for the TestFault* tests, which run
// one after the other before the parallel ones). e2e.sh is
// `make e2e-k8s`: up, go test, down.
//
// TestMain imports the images and finds the cluster through KUBECONFIG
// (default: up.sh's admin kubeconfig). Each test works in a namespace of
// its own, reads an example from examples/ with integration/kit's manifest
// editor (the one the podman suite uses), points its images at the local ones, replaces the apps' `args:` with
// stand-ins (integration/e2e/standin) and keeps every tandem `command:`
// exactly as the example writes it. It applies the Job, watches it to its
// end (bounded), and asserts on the Job's conditions, the containers'
// statuses and tandem's JSON log lines. A Job that fails or does not end
// prints its pods' statuses and the namespace's events. Without a cluster
// every test skips, unless TANDEM_K8S_REQUIRED is set (CI).
package k8s
