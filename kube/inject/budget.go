package inject

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxRestartsKey and RestartWindowKey prefix the pod template annotations
// that give a sidecar a restart budget (tandem.sh/max-restarts.CONTAINER:
// "3", tandem.sh/restart-window.CONTAINER: "5m"): its tandem sidecar's
// --max-restarts and --restart-window.
const (
	MaxRestartsKey   = "tandem.sh/max-restarts."
	RestartWindowKey = "tandem.sh/restart-window."
)

// defaultEssentialRestarts is the budget of a sidecar the mains need when
// its annotation states none. A proxy the mains cannot work without that
// crashes a fourth time within tandem's default window (10m) is broken,
// not unlucky: after the back-off of 1 s, 2 s and 4 s tandem gives up,
// the mains' --needs sees it lost, and the Job fails in seconds with that
// reason instead of stalling until its activeDeadlineSeconds. Three
// restarts still ride out a proxy's transient failure at start (its
// credentials or its upstream not there yet).
const defaultEssentialRestarts = 3

// minRestartWindow is the shortest restart window: tandem waits that long
// before its first restart, so a shorter window never counts two exits
// and limits nothing.
const minRestartWindow = time.Second

// restartBudget is a sidecar's --max-restarts (0: none) and
// --restart-window (0: tandem's default).
type restartBudget struct {
	max    int
	window time.Duration
}

// restartBudgets reads the budget annotations for the sidecars (each must
// name one) and gives the needed ones the default budget when they state
// none. A stated max of 0 turns the budget off.
func restartBudgets(annotations *yaml.Node, sidecars, needs []string) (map[string]restartBudget, error) {
	budgets := map[string]restartBudget{}
	for _, name := range needs {
		budgets[name] = restartBudget{max: defaultEssentialRestarts}
	}
	windows := map[string]string{}
	var errs []error
	for i := 0; annotations != nil && annotations.Kind == yaml.MappingNode && i+1 < len(annotations.Content); i += 2 {
		key, value := annotations.Content[i].Value, annotations.Content[i+1].Value
		name, isMax := strings.CutPrefix(key, MaxRestartsKey)
		name, isWindow := cutIf(!isMax, name, RestartWindowKey)
		if !isMax && !isWindow {
			continue
		}
		if !slices.Contains(sidecars, name) {
			errs = append(errs, fmt.Errorf("%s names container %q, which is not a sidecar of this pod (sidecars: %s): fix the annotation, or name the container in %s",
				key, name, strings.Join(sidecars, ", "), SidecarsKey))
			continue
		}
		b := budgets[name]
		if isWindow {
			d, err := time.ParseDuration(value)
			if err != nil || d < minRestartWindow || strings.HasPrefix(value, "+") {
				errs = append(errs, fmt.Errorf("%s: %q: expected a duration such as 10m or 90s, of at least %s (tandem's first restart waits %s: a shorter window never holds two exits)",
					key, value, minRestartWindow, minRestartWindow))
			}
			b.window, windows[name] = d, value
		} else if n, err := strconv.Atoi(value); err != nil || strings.Trim(value, "0123456789") != "" {
			errs = append(errs, fmt.Errorf("%s: %q: expected a whole number of restarts, e.g. \"3\" (\"0\": no budget), in digits alone", key, value))
		} else {
			b.max = n
		}
		budgets[name] = b
	}
	for _, name := range sidecars {
		if text, ok := windows[name]; ok && budgets[name].max == 0 {
			errs = append(errs, fmt.Errorf("%s%s: %q has no effect without a budget: set %s%s too", RestartWindowKey, name, text, MaxRestartsKey, name))
		}
	}
	return budgets, errors.Join(errs...)
}

// cutIf cuts prefix from s when do holds and s has it.
func cutIf(do bool, s, prefix string) (string, bool) {
	if !do {
		return s, false
	}
	return strings.CutPrefix(s, prefix)
}
