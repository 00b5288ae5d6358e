package inject

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tandem-sh/tandem/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// startCondition turns a sidecar's startupProbe, else its readinessProbe,
// into a tandem COND and the time the kubelet would give it
// (initialDelaySeconds + periodSeconds × failureThreshold). ok is false
// when the sidecar has neither probe; err says why a probe cannot be one.
func startCondition(ctr *yaml.Node) (cond string, budgetSecs int, ok bool, err error) {
	probe := yamlnode.Lookup(ctr, "startupProbe")
	if probe == nil {
		probe = yamlnode.Lookup(ctr, "readinessProbe")
	}
	if probe == nil || probe.Kind != yaml.MappingNode {
		return "", 0, false, nil
	}
	cond, err = probeCondition(ctr, probe)
	if err != nil {
		return "", 0, true, err
	}
	budget := intAt(probe, "initialDelaySeconds", 0) +
		intAt(probe, "periodSeconds", defaultProbePeriod)*intAt(probe, "failureThreshold", defaultProbeFailures)
	return cond, budget, true, nil
}

// presetBudgetSecs is how long a start hook waits for a preset's
// readiness: the kubelet's default probe budget, doubled for a proxy
// that connects out first.
const presetBudgetSecs = 2 * defaultProbePeriod * defaultProbeFailures

// PresetStartTimeout is that wait as the start hook's --timeout.
const PresetStartTimeout = presetBudgetSecs * time.Second

// startCondition is c's probe as a condition, else its preset's
// readiness when the sidecar serves it.
func (c *container) startCondition() (cond string, budgetSecs int, ok bool, err error) {
	cond, budgetSecs, ok, err = startCondition(c.node)
	if ok {
		return cond, budgetSecs, ok, err
	}
	if cond, ok := c.presetCondition(); ok {
		return cond, presetBudgetSecs, true, nil
	}
	return "", 0, false, nil
}

func probeCondition(ctr, probe *yaml.Node) (string, error) {
	if h := yamlnode.Lookup(probe, "httpGet"); h != nil {
		port, err := probePort(ctr, yamlnode.Lookup(h, "port"))
		if err != nil {
			return "", err
		}
		host := hostOr(yamlnode.ScalarAt(h, "host"))
		if strings.EqualFold(yamlnode.ScalarAt(h, "scheme"), "HTTPS") {
			// tandem's small HTTP client has no TLS (TLS alone would add
			// megabytes to it): a TCP connection is the closest it can check.
			return "tcp:" + net.JoinHostPort(host, port), nil
		}
		p := yamlnode.ScalarAt(h, "path")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		return "http://" + net.JoinHostPort(host, port) + p, nil
	}
	if t := yamlnode.Lookup(probe, "tcpSocket"); t != nil {
		port, err := probePort(ctr, yamlnode.Lookup(t, "port"))
		if err != nil {
			return "", err
		}
		return "tcp:" + net.JoinHostPort(hostOr(yamlnode.ScalarAt(t, "host")), port), nil
	}
	if e := yamlnode.Lookup(probe, "exec"); e != nil {
		argv, ok := yamlnode.StringsOf(yamlnode.Lookup(e, "command"))
		if !ok || len(argv) == 0 {
			return "", fmt.Errorf("exec probe: expected a command list")
		}
		for _, a := range argv {
			if a == "" || strings.ContainsAny(a, " \t\n") {
				return "", fmt.Errorf("exec probe argument %q: tandem's exec: condition splits on white space, so an argument cannot contain any", a)
			}
		}
		return "exec:" + strings.Join(argv, " "), nil
	}
	return "", fmt.Errorf("probe: expected httpGet, tcpSocket or exec (grpc has no tandem condition)")
}

func hostOr(host string) string {
	if host == "" {
		return "127.0.0.1" // the pod's own network namespace
	}
	return host
}

// probePort reads a probe's port: a number, or the name of one of the
// container's ports.
func probePort(ctr, port *yaml.Node) (string, error) {
	if port == nil || port.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("probe: expected a port")
	}
	if _, err := strconv.Atoi(port.Value); err == nil {
		return port.Value, nil
	}
	if ports := yamlnode.Lookup(ctr, "ports"); ports != nil {
		for _, p := range ports.Content {
			if yamlnode.ScalarAt(p, "name") == port.Value {
				return yamlnode.ScalarAt(p, "containerPort"), nil
			}
		}
	}
	return "", fmt.Errorf("probe port %q: expected a number or the name of one of the container's ports", port.Value)
}

func intAt(m *yaml.Node, key string, def int) int {
	if n, err := strconv.Atoi(yamlnode.ScalarAt(m, key)); err == nil && n > 0 {
		return n
	}
	return def
}
