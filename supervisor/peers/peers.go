// Package peers finds the other tandem processes of a pod in a shared PID
// namespace, by their command line alone, and signals them through pidfds.
package peers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/signals"
)

// Options say which sidecar peers to signal (main and done).
type Options struct {
	Enabled bool
	Names   []string
	Timeout time.Duration
}

// ListeningMark names one of a tandem's threads once its signal handlers are
// registered. A peer is visible in /proc from its exec, but until then a done
// signal would kill it (default action) or be dropped by the Go runtime;
// Signal waits for this name instead.
const ListeningMark = "tandem-ready"

// maxProcFileRead bounds what is read of a /proc file: they are tiny, and a
// hostile one must not make tandem allocate without bound.
const maxProcFileRead = 64 << 10

// Peer is a `tandem sidecar` process found in the shared PID namespace.
type Peer struct {
	PID  int
	Name string // from --name on its command line, "" when not given there
}

// Finder lists the sidecar peers visible now, and signals one of them.
type Finder interface {
	FindPeers() ([]Peer, error)
	SignalPeer(p Peer, sig unix.Signal) error
}

// peerRetryInterval: containers start in parallel, so a short main may end
// before its sidecar exists; look again this often until --peer-timeout.
const peerRetryInterval = 100 * time.Millisecond

// ErrNotFound is returned when a named peer never appeared.
var ErrNotFound = errors.New("peer not found")

// parseCmdline recognises `tandem sidecar` by its command line alone (see
// cmdline.ParseProc) and reads its --name.
func parseCmdline(raw []byte) (name string, ok bool) {
	inv, ok := cmdline.ParseProc(raw)
	if !ok || inv.Command != cmdline.CmdSidecar {
		return "", false
	}
	return inv.Name, true
}

// Signal sends sig to the sidecar peers: every one found (at least one)
// or, with names, every one of those names. It keeps looking until timeout.
// Signals are sent once per process.
func Signal(ctx context.Context, finder Finder, opts Options, sig unix.Signal, log zerolog.Logger) error {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	signaled := map[int]bool{}
	namesSeen := map[string]bool{}
	var failures []error
	lookingLogged := false
	ticker := time.NewTicker(peerRetryInterval)
	defer ticker.Stop()
	for {
		peers, err := finder.FindPeers()
		if err != nil {
			return fmt.Errorf("find peers: %w", err)
		}
		for _, p := range peers {
			if signaled[p.PID] || (len(opts.Names) > 0 && !slices.Contains(opts.Names, p.Name)) {
				continue
			}
			signaled[p.PID] = true
			if err := finder.SignalPeer(p, sig); err != nil {
				if errors.Is(err, unix.ESRCH) {
					// Exited between the scan and the signal: it must not
					// count as signaled (with no names, that would end the
					// search with nothing stopped), and a new process that
					// gets its pid is a new peer.
					delete(signaled, p.PID)
					continue
				}
				failures = append(failures, peerSignalError(p, sig, err))
				continue
			}
			namesSeen[p.Name] = true
			log.Info().Str("event", cmdline.EventPeerSignaled).Int("peer_pid", p.PID).Str("peer", p.Name).Str("signal", signals.Name(sig)).Msg("signaled sidecar peer")
		}
		if len(failures) > 0 {
			return errors.Join(failures...)
		}
		missing := missingNames(opts.Names, namesSeen)
		if (len(opts.Names) == 0 && len(signaled) > 0) || (len(opts.Names) > 0 && len(missing) == 0) {
			return nil
		}
		if !lookingLogged {
			lookingLogged = true
			log.Info().Str("event", cmdline.EventPeersLooking).Strs("missing", missing).Dur("peer_timeout_ms", opts.Timeout).
				Msg("sidecar peers not found or not listening yet; still looking")
		}
		select {
		case <-ctx.Done():
			if len(opts.Names) == 0 {
				return fmt.Errorf("%w: no `tandem sidecar` process appeared in this PID namespace within %s "+
					"(is shareProcessNamespace: true set, and is the sidecar started as `tandem sidecar ...`?)", ErrNotFound, opts.Timeout)
			}
			return fmt.Errorf("%w: no `tandem %s --%s %s` appeared within %s (the name must be given with --%s on the sidecar's command line; %s is invisible to other processes)",
				ErrNotFound, cmdline.CmdSidecar, cmdline.FlagName, strings.Join(missing, ", "), opts.Timeout, cmdline.FlagName, cmdline.EnvVar(cmdline.FlagName))
		case <-ticker.C:
		}
	}
}

func missingNames(names []string, seen map[string]bool) []string {
	var missing []string
	for _, n := range names {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	return missing
}

func peerSignalError(p Peer, sig unix.Signal, err error) error {
	if errors.Is(err, unix.EPERM) {
		return fmt.Errorf("signal sidecar peer pid %d (%q) with %s: %w: it runs as another user; "+
			"run the pod's containers with one runAsUser (containers running as root can already signal)",
			p.PID, p.Name, signals.Name(sig), err)
	}
	return fmt.Errorf("signal sidecar peer pid %d (%q) with %s: %w", p.PID, p.Name, signals.Name(sig), err)
}

// ProcFinder scans /proc for sidecar peers, skipping tandem itself.
type ProcFinder struct {
	procRoot string
	self     int
}

// NewProcFinder scans this PID namespace's /proc.
func NewProcFinder() *ProcFinder {
	return &ProcFinder{procRoot: "/proc", self: os.Getpid()}
}

var _ Finder = (*ProcFinder)(nil)

func (f *ProcFinder) FindPeers() ([]Peer, error) {
	entries, err := readDirNames(f.procRoot)
	if err != nil {
		return nil, err
	}
	var peers []Peer
	for _, entry := range entries {
		pid, ok := parsePID(entry)
		if !ok || pid == f.self {
			continue
		}
		raw, err := readSmallFile(filepath.Join(f.procRoot, entry, "cmdline"))
		if err != nil || len(raw) == 0 || !bytes.Contains(raw, []byte(cmdline.CmdSidecar)) {
			continue // gone, a kernel thread, or plainly not a sidecar
		}
		if name, ok := parseCmdline(raw); ok && f.listening(entry) {
			peers = append(peers, Peer{PID: pid, Name: name})
		}
	}
	return peers, nil
}

// forkedCopy: a process with one thread is no running tandem (the Go
// runtime always has several) but a child it forked and has not exec'd yet.
// That copy still shows the parent's command line, and the forking thread's
// name, which for CMD is the thread named ListeningMark: signalled, it
// would take the done signal into the sidecar's new CMD.
func (f *ProcFinder) forkedCopy(pidDir string) bool {
	tasks, err := readDirNames(filepath.Join(f.procRoot, pidDir, "task"))
	return err != nil || len(tasks) < 2
}

// listening reports whether the sidecar has registered its signal handlers
// (one of its threads carries ListeningMark). One that has just been
// exec'd is skipped until a later scan: a done signal sent now would kill it
// or be lost.
func (f *ProcFinder) listening(pidDir string) bool {
	taskDir := filepath.Join(f.procRoot, pidDir, "task")
	if f.forkedCopy(pidDir) {
		return false
	}
	tasks, err := readDirNames(taskDir)
	if err != nil {
		return false
	}
	for _, task := range tasks {
		comm, err := readSmallFile(filepath.Join(taskDir, task, "comm"))
		if err == nil && string(bytes.TrimSpace(comm)) == ListeningMark {
			return true
		}
	}
	return false
}
