// Package e2e plays every manifest of examples/ as real pods under
// `podman kube play` (build tag e2e; `make e2e`).
//
// TestMain builds two local images: the tandem image from Dockerfile.scratch
// (the binary alone), and a test image with tandem, busybox and standin (a
// small program that plays the proxies, the apps and the log shipper). Each
// test then reads one example, turns a Job's or a Deployment's pod template
// into a Pod (podman 4.3 plays neither kind), points the images at the local
// ones, and replaces the apps' `args:` with stand-ins, keeping every tandem
// `command:` exactly as the example writes it. It plays the pod and asserts
// on exit codes, on the time the pod takes to end, and on the order of events
// in the logs. Control tests play the same pods without tandem, or without
// the flag under test, to show that the assertions can fail.
//
// The manifests are edited as YAML node trees by integration/kit, on the
// node helpers tandemctl inject uses; `command:` and `args:` items must be
// strings as Kubernetes reads them, and are compared exactly. Log lines,
// the events the tests look for and the order assertions are the kit's too.
//
// The realprog_* tests play real programs from Debian instead of stand-ins
// (postgres, pgbouncer, pg_dump and psql, nginx, curl, GNU tail), in pods
// from realprog/*.yaml: an image made from a minimal Debian rootfs
// (realprog/rootfs.sh, mmdebstrap, cached outside the checkout; make e2e
// builds it first) with tandem copied in (realprog/image.sh), built on the
// first such test of a run. Their emptyDirs get names of their own, because
// podman shares an emptyDir between the live pods that name it alike.
//
// Podman runs with runc (crun fails on hosts with hybrid cgroups) and with
// rlimits at the current hard limits (the defaults cannot be raised without
// CAP_SYS_RESOURCE), through a CONTAINERS_CONF file written for the run;
// nothing under /etc is changed. Without podman, runc, a static busybox or
// root, every test skips and says why; TANDEM_E2E_REQUIRED=1 (.ci/run sets
// it) makes that a failure instead.
//
// The tandemctl tests play manifests that the built tandemctl
// ($TANDEMCTL_BIN, else bin/tandemctl) wrote: examples/inject's plain Job,
// and a Pod whose images' ENTRYPOINT, CMD and STOPSIGNAL it read from
// Debian's docker-registry, run on 127.0.0.1 for the test (skipped without
// it, unless TANDEM_E2E_REQUIRED is set).
package e2e
