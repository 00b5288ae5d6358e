package inject

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// StopDelayKey prefixes the pod template annotation that makes a sidecar
// wait between the mains' end and its stop (tandem.sh/stop-delay.CONTAINER:
// "1s"): its tandem sidecar's --stop-delay. A log shipper that tails files
// reads them once every poll interval (the OpenTelemetry Collector's
// filelog receiver: 200 ms) and reads nothing more once stopped: stopped at
// once, it leaves the mains' last lines unread. A delay longer than its
// interval lets it read them.
const StopDelayKey = "tandem.sh/stop-delay."

// stopDelays reads the stop-delay annotations: each names a sidecar and
// states a duration. The delay comes out of that sidecar's share of the
// grace period (grace.go's fit keeps room for it and its stop).
func stopDelays(annotations *yaml.Node, sidecars []string) (map[string]time.Duration, error) {
	delays := map[string]time.Duration{}
	var errs []error
	for i := 0; annotations != nil && annotations.Kind == yaml.MappingNode && i+1 < len(annotations.Content); i += 2 {
		key, value := annotations.Content[i].Value, annotations.Content[i+1].Value
		name, ok := strings.CutPrefix(key, StopDelayKey)
		if !ok {
			continue
		}
		if !slices.Contains(sidecars, name) {
			errs = append(errs, fmt.Errorf("%s names container %q, which is not a sidecar of this pod (sidecars: %s): fix the annotation, or name the container in %s",
				key, name, strings.Join(sidecars, ", "), SidecarsKey))
			continue
		}
		d, err := time.ParseDuration(strings.TrimSpace(value))
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s: %q: expected a duration such as 1s or 500ms", key, value))
			continue
		}
		delays[name] = d
	}
	return delays, errors.Join(errs...)
}

// presetStopDelays gives each preset sidecar its preset's stop delay where
// the pod states none (a collector that may tail files).
func (p *plan) presetStopDelays() {
	for _, c := range append(slices.Clone(p.sidecars), p.natives...) {
		if _, stated := p.grace.delays[c.name]; stated || c.preset == nil {
			continue
		}
		if d, ok := c.preset.Delay(); ok {
			p.grace.delays[c.name] = d
		}
	}
}
