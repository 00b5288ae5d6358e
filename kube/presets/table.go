package presets

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

//go:embed presets.json
var tableJSON []byte

// Preset is what the project verified of one sidecar.
type Preset struct {
	Name string `json:"name"`
	// Repositories are the last elements of the image's repository path,
	// e.g. "istio/proxyv2": any registry or mirror before them matches.
	Repositories []string `json:"repositories"`
	Role         string   `json:"role"`
	// StopSignal is the signal it stops cleanly on, as tandem names it.
	StopSignal string `json:"stopSignal"`
	// Quit is how it is asked to quit when a signal alone is wrong.
	Quit *Endpoint `json:"quit,omitempty"`
	// Ready is its readiness when the pod declares no probe.
	Ready *Endpoint `json:"ready,omitempty"`
	// StopExitCode is its exit code on a requested stop (nil: not read).
	StopExitCode *int `json:"stopExitCode,omitempty"`
	// ExitZero is what makes it exit 0 on its stop signal instead.
	ExitZero *Switch `json:"exitZero,omitempty"`
	// Essential: the mains need it by default (tandem.sh/needs).
	Essential bool `json:"essential"`
	// Grace is the time it needs to stop after its stop signal (to flush,
	// for a shipper): its default share of the pod's grace period
	// (tandem.sh/sidecar-grace), a Go duration; "" for tandem's default.
	Grace string `json:"grace,omitempty"`
	// StopDelay is how long it waits after the mains' end before its stop
	// (tandem.sh/stop-delay.CONTAINER's default): a shipper that tails
	// files reads them once per poll interval, and nothing once stopped.
	StopDelay string `json:"stopDelay,omitempty"`
	// Images are the ENTRYPOINT and CMD its image's Dockerfile states, by
	// tag: a sidecar with no command runs them without a registry lookup.
	Images   []Image  `json:"images,omitempty"`
	Verified Verified `json:"verified"`
}

// Endpoint is a URL or tandem condition that the sidecar serves only
// when its command line has WhenArg or its environment sets WhenEnv to
// "true" (both empty: always), on the port its command line gives with
// PortArg or its environment with PortEnv (else the URL's), a port or an
// address HOST:PORT.
type Endpoint struct {
	URL     string `json:"url,omitempty"`
	When    string `json:"when,omitempty"`
	WhenArg string `json:"whenArg,omitempty"`
	WhenEnv string `json:"whenEnv,omitempty"`
	PortArg string `json:"portArg,omitempty"`
	PortEnv string `json:"portEnv,omitempty"`
}

// Switch is a boolean setting of the sidecar: a flag, or a variable set
// to "true" when the flag is not given.
type Switch struct {
	Arg string `json:"arg,omitempty"`
	Env string `json:"env,omitempty"`
}

// Verified says where the entry was read: the version ("" when the
// source was read at a commit with no release) and the files.
type Verified struct {
	Version string `json:"version,omitempty"`
	Source  string `json:"source"`
}

// Table is the presets, in the data file's order.
type Table struct {
	Presets []Preset `json:"presets"`
}

// Builtin is the table compiled into tandemctl.
func Builtin() *Table {
	t, err := Parse(tableJSON)
	if err != nil {
		panic("presets.json: " + err.Error()) // a test keeps it valid
	}
	return t
}

// Parse reads and checks a table.
func Parse(data []byte) (*Table, error) {
	var t Table
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, err
	}
	seen := map[string]string{}
	for _, p := range t.Presets {
		if err := p.check(); err != nil {
			return nil, err
		}
		for _, r := range p.Repositories {
			if other, dup := seen[r]; dup {
				return nil, fmt.Errorf("repository %q is in presets %q and %q: expected one", r, other, p.Name)
			}
			seen[r] = p.Name
		}
	}
	return &t, nil
}

// check says what of p is missing or malformed.
func (p *Preset) check() error {
	if p.Name == "" || len(p.Repositories) == 0 || p.StopSignal == "" || p.Verified.Source == "" {
		return fmt.Errorf("preset %q: expected a name, repositories, a stopSignal and verified.source", p.Name)
	}
	if p.Ready != nil && p.Ready.When == "" || p.Quit != nil && !strings.HasPrefix(p.Quit.URL, "http://") {
		return fmt.Errorf("preset %q: expected ready.when to be a condition and quit.url an http:// URL", p.Name)
	}
	for _, e := range []*Endpoint{p.Quit, p.Ready} {
		if e != nil && (e.PortArg != "" || e.PortEnv != "") && !strings.HasPrefix(e.Target(), "http://") {
			return fmt.Errorf("preset %q: %s: a port is read only for an http:// endpoint", p.Name, e.Target())
		}
	}
	if d, err := time.ParseDuration(p.Grace); p.Grace != "" && (err != nil || d <= 0) {
		return fmt.Errorf("preset %q: grace %q: expected a duration above zero, e.g. 10s", p.Name, p.Grace)
	}
	if d, err := time.ParseDuration(p.StopDelay); p.StopDelay != "" && (err != nil || d <= 0) {
		return fmt.Errorf("preset %q: stopDelay %q: expected a duration above zero, e.g. 1s", p.Name, p.StopDelay)
	}
	for _, im := range p.Images {
		if err := im.check(); err != nil {
			return fmt.Errorf("preset %q: images: %w", p.Name, err)
		}
	}
	return nil
}

// StopGrace is Grace as a duration; ok is false when the preset has none.
func (p *Preset) StopGrace() (d time.Duration, ok bool) {
	d, err := time.ParseDuration(p.Grace)
	return d, err == nil && d > 0
}

// Delay is StopDelay as a duration; ok is false when the preset has none.
func (p *Preset) Delay() (d time.Duration, ok bool) {
	d, err := time.ParseDuration(p.StopDelay)
	return d, err == nil && d > 0
}
