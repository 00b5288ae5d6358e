package inject

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// NeedsKey names the sidecars that the mains cannot run without: each
// main stops, and fails, when one of them is lost (tandem main --needs).
const NeedsKey = "tandem.sh/needs"

// neededSidecars reads the tandem.sh/needs annotation: names of sidecars,
// in the pod's order. A name that is not one of the pod's sidecars is an
// error: a main the user meant to protect must not run unprotected.
func neededSidecars(annotation string, sidecars []string) ([]string, error) {
	wanted := map[string]bool{}
	for _, name := range strings.Split(annotation, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		if !slices.Contains(sidecars, name) {
			have := "none"
			if len(sidecars) > 0 {
				have = strings.Join(sidecars, ", ")
			}
			return nil, fmt.Errorf("%s: %q is not a sidecar of this pod (sidecars: %s): name it in %s too, or fix the annotation",
				NeedsKey, name, have, SidecarsKey)
		}
		wanted[name] = true
	}
	var needs []string
	for _, name := range sidecars {
		if wanted[name] {
			needs = append(needs, name)
		}
	}
	return needs, nil
}

// readyFile is where a needed sidecar's tandem writes its ready file and
// holds its lifeline (readyFile + ".lifeline") for the mains.
func readyFile(sidecar string) string {
	return MountPath + "/" + sidecar + ".ready"
}

// neededReadyFiles are every main's --needs.
func (p *plan) neededReadyFiles() []string {
	var files []string
	for _, name := range p.needs {
		files = append(files, readyFile(name))
	}
	return files
}

// readiness is sidecar c's --ready-file and --ready-when: its probe, so
// that the mains start once it is ready; none when no main needs it.
func (p *plan) readiness(c *container) (file string, when []string) {
	if !slices.Contains(p.needs, c.name) {
		return "", nil
	}
	cond, _, ok, err := c.startCondition()
	switch {
	case err != nil:
		p.warnings = append(p.warnings, "sidecar "+strconv.Quote(c.name)+" is ready for the mains that need it as soon as it starts: "+err.Error())
	case ok:
		when = []string{cond}
	}
	return readyFile(c.name), when
}
