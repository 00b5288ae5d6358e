package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// Peer is a `tandem sidecar` process found in the shared PID namespace.
type Peer struct {
	PID  int
	Name string // from --name on its command line, "" when not given there
}

// PeerFinder lists the sidecar peers visible now, and signals one of them.
type PeerFinder interface {
	FindPeers() ([]Peer, error)
	SignalPeer(p Peer, sig unix.Signal) error
}

// peerRetryInterval: containers start in parallel, so a short main may end
// before its sidecar exists; look again this often until --peer-timeout.
const peerRetryInterval = 100 * time.Millisecond

// ErrPeerNotFound is returned when a named peer never appeared.
var ErrPeerNotFound = errors.New("peer not found")

// parsePeerCmdline recognises tandem sidecar by its command line alone:
// argv[0] named tandem, argv[1] "sidecar". Matching process names would hit
// unrelated programs; a command line is what tandem itself wrote.
func parsePeerCmdline(cmdline []byte) (name string, ok bool) {
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(argv) < 2 || filepath.Base(argv[0]) != "tandem" || argv[1] != "sidecar" {
		return "", false
	}
	for i := 2; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			break
		}
		for _, prefix := range []string{"--name", "-name"} {
			if arg == prefix && i+1 < len(argv) {
				name = argv[i+1]
			} else if value, found := strings.CutPrefix(arg, prefix+"="); found {
				name = value
			}
		}
	}
	return name, true
}

// signalPeers sends sig to the sidecar peers: every one found (at least one)
// or, with names, every one of those names. It keeps looking until timeout.
// Signals are sent once per process.
func signalPeers(ctx context.Context, finder PeerFinder, opts PeerOptions, sig unix.Signal, log zerolog.Logger) error {
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
			log.Info().Int("peer_pid", p.PID).Str("peer", p.Name).Str("signal", SignalName(sig)).Msg("signaled sidecar peer")
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
			log.Info().Strs("missing", missing).Dur("peer_timeout", opts.Timeout).
				Msg("sidecar peers not found or not listening yet; still looking")
		}
		select {
		case <-ctx.Done():
			if len(opts.Names) == 0 {
				return fmt.Errorf("%w: no `tandem sidecar` process appeared in this PID namespace within %s "+
					"(is shareProcessNamespace: true set, and is the sidecar started as `tandem sidecar ...`?)", ErrPeerNotFound, opts.Timeout)
			}
			return fmt.Errorf("%w: no `tandem sidecar --name %s` appeared within %s (the name must be given with --name on the sidecar's command line; TANDEM_NAME is invisible to other processes)",
				ErrPeerNotFound, strings.Join(missing, ", "), opts.Timeout)
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
			"run both containers with the same runAsUser, or add the KILL capability to this container",
			p.PID, p.Name, SignalName(sig), err)
	}
	return fmt.Errorf("signal sidecar peer pid %d (%q) with %s: %w", p.PID, p.Name, SignalName(sig), err)
}

// procPeerFinder scans /proc for sidecar peers, skipping tandem itself.
type procPeerFinder struct {
	procRoot string
	self     int
}

var _ PeerFinder = (*procPeerFinder)(nil)

func (f *procPeerFinder) FindPeers() ([]Peer, error) {
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
		cmdline, err := readSmallFile(filepath.Join(f.procRoot, entry, "cmdline"))
		if err != nil || len(cmdline) == 0 || !bytes.Contains(cmdline, []byte("sidecar")) {
			continue // gone, a kernel thread, or plainly not a sidecar
		}
		if name, ok := parsePeerCmdline(cmdline); ok && f.listening(entry) {
			peers = append(peers, Peer{PID: pid, Name: name})
		}
	}
	return peers, nil
}

// listening reports whether the sidecar has registered its signal handlers
// (one of its threads carries listeningThreadName). One that has just been
// exec'd is skipped until a later scan: a done signal sent now would kill it
// or be lost.
func (f *procPeerFinder) listening(pidDir string) bool {
	taskDir := filepath.Join(f.procRoot, pidDir, "task")
	tasks, err := readDirNames(taskDir)
	if err != nil {
		return false
	}
	for _, task := range tasks {
		comm, err := readSmallFile(filepath.Join(taskDir, task, "comm"))
		if err == nil && string(bytes.TrimSpace(comm)) == listeningThreadName {
			return true
		}
	}
	return false
}
