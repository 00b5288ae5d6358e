package inject

import (
	"slices"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// A sidecar that native mode moves to initContainers holds the next
// containers until it is ready, as a classic one does with its start hook
// and as Istio's injector has its native sidecar do: the kubelet starts
// the next init container (the mains after the last) only once a
// restartable init container's startupProbe has succeeded and its
// postStart hook has returned. So its readinessProbe, else its preset's
// readiness, becomes the postStart hook `tandem wait`, as in classic mode:
// the hook checks from inside the pod, so a proxy that listens on its
// loopback only (cloud-sql-proxy's default) is seen ready, where the
// kubelet's probes, sent to the pod's address, would never see it. A
// readinessProbe that is no tandem condition (gRPC) becomes the
// startupProbe instead. A startupProbe the pod states holds it already and
// is kept as it is; a sidecar the pod declares native keeps the start the
// pod gave it. A sidecar the mains need is held by their --needs instead.

// holdNextStart decides how native-mode sidecar c holds the next
// containers' start: the start hook of its readiness, or a startupProbe
// copied from a readinessProbe tandem cannot check; neither when it has a
// startupProbe or no known readiness.
func (p *plan) holdNextStart(c *container) {
	// A needed sidecar holds the mains through their --needs already, and
	// one that crash-loops must let them start, see it lost and fail the
	// Job: a hold at the kubelet would keep the pod in Init for ever.
	if yamlnode.Lookup(c.node, "startupProbe") != nil || slices.Contains(p.needs, c.name) {
		return
	}
	if ready := yamlnode.Lookup(c.node, "readinessProbe"); ready != nil && ready.Kind == yaml.MappingNode {
		if _, err := probeCondition(c.node, ready); err != nil {
			c.startupProbe = startupProbeOf(ready)
			return
		}
	}
	c.startHook = p.startHook(c)
}

// startupProbeOf is a startupProbe that checks what readiness checks,
// with its timing: a copy, less successThreshold, which a startupProbe
// must leave at 1.
func startupProbeOf(readiness *yaml.Node) *yaml.Node {
	probe := expand(readiness, false)
	probe.Style &^= yaml.FlowStyle
	probe.HeadComment, probe.LineComment, probe.FootComment = "", "", ""
	for i := 0; i+1 < len(probe.Content); i += 2 {
		if probe.Content[i].Value == "successThreshold" {
			probe.Content = append(probe.Content[:i:i], probe.Content[i+2:]...)
			break
		}
	}
	return probe
}
