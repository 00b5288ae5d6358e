// Package check is `tandemctl check`: a read-only look at a cluster that
// says what keeps Jobs from completing and how to fix it, like
// `linkerd check` and `istioctl analyze`.
//
// Run reads the cluster through a small interface (cluster) whose real
// implementation, APICluster, holds client-go's typed clients of the five
// API groups it reads and only ever lists or gets. Two families of checks
// turn what it read into Findings:
//
//   - held pods: a pod whose main containers have all ended while a sidecar
//     still runs, longer than Options.StuckAfter (heldpods.go);
//   - a Job's podFailurePolicy rule that a sidecar's teardown trips
//     (podfailure.go);
//   - uninjected pods: running in a namespace a webhook of tandem selects,
//     without tandem, though inject (run in memory on the pod, as the
//     webhook would) would change them (uninjected.go);
//   - the installation, for each webhook of tandem in a
//     MutatingWebhookConfiguration: its endpoint answers /readyz, the
//     certificate it serves verifies against the caBundle and lasts 30
//     days more, the Deployment behind its Service has replicas available,
//     the ServiceAccount of its pods holds no more than the webhook needs
//     (webhookrbac.go), and some namespace is labelled for injection
//     (webhooks.go and the files it calls).
//
// The findings are printed as text or JSON (render.go); the caller turns
// errors among them into exit code 1.
package check
