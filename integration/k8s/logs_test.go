//go:build k8s

package k8s

import (
	"slices"

	"github.com/tandem-sh/tandem/integration/kit"
)

// podLogs returns every container's output (of its current run; previous
// also adds the run before a restart), in time order.
func (n *namespace) podLogs(p pod, previous ...string) []kit.Line {
	n.t.Helper()
	var all []kit.Line
	for _, cs := range append(p.Status.InitContainerStatuses, p.Status.ContainerStatuses...) {
		args := []string{"logs", p.Metadata.Name, "-c", cs.Name, "--timestamps"}
		runs := [][]string{args}
		if slices.Contains(previous, cs.Name) {
			runs = append(runs, append(args, "--previous"))
		}
		for _, run := range runs {
			ctx, cancel := contextFor(kubectlTimeout)
			lines, err := kit.ContainerLogs(ctx, n.kubectl(), cs.Name, run...)
			cancel()
			if err != nil {
				n.t.Fatal(err)
			}
			all = append(all, lines...)
		}
	}
	kit.SortByTime(all)
	return all
}
