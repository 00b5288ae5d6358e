package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// main --needs READY_FILE: the main holds each sidecar it needs through the
// lifeline that sidecar's tandem holds at READY_FILE.lifeline (see
// readylifeline.go), as a sidecar holds its main through the done file's. A
// holder letting go while this main is attached, before the main is done,
// is the sidecar lost: one more event of the loops (the engine's lost).

// sidecarLoss is a needed sidecar's tandem gone before the main was done.
type sidecarLoss struct {
	sidecar string // the name in its ready file, else the ready file's base name
	ready   string
	gaveUp  bool // found ended with its restart budget spent (givenUpPath)
}

func (l sidecarLoss) Error() string {
	if l.gaveUp {
		return fmt.Sprintf("needed sidecar %q lost: its tandem gave up restarting it (%s) before the main was done (ready file %s)",
			l.sidecar, statusfile.ReasonRestartLimit, l.ready)
	}
	return fmt.Sprintf("needed sidecar %q lost: its tandem ended before the main was done (ready file %s)", l.sidecar, l.ready)
}

// givenUpPath is where a sidecar that spent its restart budget says so,
// beside its ready file: a main that starts after it ended (its start held
// until then by a start hook) fails at once instead of waiting for a
// sidecar that will not come back. A tandem that starts there anew removes
// it.
func givenUpPath(ready string) string { return ready + ".given-up" }

// need is one --needs: the sidecar's lifeline as far as this main knows it.
// Only the wait's goroutine changes it, except name (read by the holding
// goroutine when the holder lets go).
type need struct {
	ready   string
	line    *lifeline.Line // attached: its end is the sidecar lost
	stale   *lifeline.Line // a lifeline seen released: wait for a new holder
	without bool           // the ready file is there with no lifeline: wait only
	met     bool
	mu      sync.Mutex
	name    string
}

// sidecarName is the name in its ready file, once read; before that, the
// ready file's base name without its extension (tandemctl writes
// /run/tandem/NAME.ready).
func (n *need) sidecarName() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.name != "" {
		return n.name
	}
	base := filepath.Base(n.ready)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// needs is the main's hold on every sidecar it needs.
type needs struct {
	host string
	log  zerolog.Logger
	list []*need
	lost chan<- sidecarLoss
	over atomic.Bool // the main is done: a holder letting go now is no loss
}

func newNeeds(readyFiles []string, lost chan<- sidecarLoss, log zerolog.Logger) *needs {
	ns := &needs{host: statusfile.Hostname(), log: log, lost: lost}
	for _, r := range readyFiles {
		ns.list = append(ns.list, &need{ready: r})
	}
	return ns
}

// wait looks every interval until each needed sidecar is attached and ready
// (or ready with no lifeline), or ctx ends; it returns the ready files still
// missing.
func (ns *needs) wait(ctx context.Context, interval time.Duration) []string {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		var missing []string
		for _, n := range ns.list {
			if !n.met && !ns.look(n) {
				missing = append(missing, n.ready)
			}
		}
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return missing
		case <-ticker.C:
		}
	}
}

// look is one look at a needed sidecar: true once it is attached and its
// ready file written, or the ready file is there with no lifeline at all.
// The ready file is looked at before the lifeline: a sidecar holds its
// lifeline before it writes the file, so a file seen with no lifeline after
// it was not written by a tandem sidecar.
func (ns *needs) look(n *need) bool {
	if n.line == nil {
		if ns.gaveUp(n) {
			return false // the loss is on its way to the engine
		}
		readyThere := exists(n.ready)
		err := ns.attach(n)
		switch {
		case errors.Is(err, lifeline.ErrReleased):
			return false // a sidecar killed earlier: wait for the next one
		case err != nil && readyThere:
			ns.withoutLifeline(n, err)
			return true
		case err != nil:
			return false
		}
	}
	// Attached first, then the file: a sidecar removes its predecessor's
	// ready file before it holds the lifeline, so a file seen now is its own.
	return ns.ready(n)
}

// attach watches n's lifeline unless it is the one already seen released.
func (ns *needs) attach(n *need) error {
	if n.stale != nil && n.stale.Same() {
		return lifeline.ErrReleased
	}
	line, err := lifeline.Watch(lifeline.Of(n.ready), ns.host)
	if errors.Is(err, lifeline.ErrReleased) {
		if n.stale != nil {
			n.stale.Close()
		}
		n.stale = line
		event(ns.log.Info(), cmdline.EventWaiting).Str("path", n.ready).
			Msg("the needed sidecar's lifeline has no holder (it ended earlier): waiting for the next one and a ready file written anew")
		return err
	}
	if err != nil {
		return err
	}
	n.line = line
	event(ns.log.Info(), cmdline.EventSidecarAttached).Str("path", n.ready).Msg("needed sidecar attached through its lifeline")
	go ns.hold(n, line)
	return nil
}

// hold waits, in the runtime's poller (no timer, no wake-up), for the
// holder to let go.
func (ns *needs) hold(n *need, line *lifeline.Line) {
	if line.Wait() != nil || ns.over.Load() {
		return
	}
	select {
	case ns.lost <- sidecarLoss{sidecar: n.sidecarName(), ready: n.ready}:
	default: // one loss is enough to end the main
	}
}

// gaveUp: n's sidecar ended with its restart budget spent, in this pod:
// a loss at once, not a wait for the next holder.
func (ns *needs) gaveUp(n *need) bool {
	f, present, _ := statusfile.Read(givenUpPath(n.ready))
	if !present || (f != nil && f.Host != "" && ns.host != "" && f.Host != ns.host) {
		return false
	}
	name := n.sidecarName()
	if f != nil && f.Name != "" {
		name = f.Name
	}
	select {
	case ns.lost <- sidecarLoss{sidecar: name, ready: n.ready, gaveUp: true}:
	default: // one loss is enough to end the main
	}
	return true
}

// ready is true once n's ready file is there; its name is then read.
func (ns *needs) ready(n *need) bool {
	f, present, _ := statusfile.Read(n.ready)
	if !present {
		return false
	}
	n.met = true
	if f != nil && f.Name != "" {
		n.mu.Lock()
		n.name = f.Name
		n.mu.Unlock()
	}
	event(ns.log.Info(), cmdline.EventConditionHolds).Str("condition", "needs:"+n.ready).Str("sidecar", n.sidecarName()).
		Msg("needed sidecar ready")
	return true
}

// withoutLifeline: the ready file was written by something that is not
// `tandem sidecar` (or its lifeline cannot be used): wait only, said once.
func (ns *needs) withoutLifeline(n *need, err error) {
	n.without, n.met = true, true
	l := event(ns.log.Warn(), cmdline.EventNeedsWithoutLifeline).Str("path", n.ready)
	if !errors.Is(err, lifeline.ErrAbsent) {
		l = l.Err(err)
	}
	l.Msg("the needed ready file has no lifeline (not written by tandem sidecar?): waited for only; a loss of its sidecar will not be noticed")
}

// release lets go of every sidecar: the main is done, so whatever they do
// now is no loss.
func (ns *needs) release() {
	if ns == nil {
		return
	}
	ns.over.Store(true)
	for _, n := range ns.list {
		for _, l := range []*lifeline.Line{n.line, n.stale} {
			if l != nil {
				l.Close()
			}
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// validateNeeds: each --needs is a file path, and not the main's own done
// file.
func (m *MainConfig) validateNeeds() error {
	for _, r := range m.Needs {
		switch {
		case r == "" || strings.HasSuffix(r, "/"):
			return fmt.Errorf("--%s %q: expected the path of a sidecar's ready file, e.g. /run/tandem/db-proxy.ready", cmdline.FlagNeeds, r)
		case m.DoneFile != "" && SamePath(r, m.DoneFile):
			return fmt.Errorf("--%s %q: this is the main's own --%s; expected a sidecar's ready file", cmdline.FlagNeeds, r, cmdline.FlagDoneFile)
		}
	}
	return nil
}
