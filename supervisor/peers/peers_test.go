package peers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

func TestParsePeerCmdline(t *testing.T) {
	tests := []struct {
		name     string
		argv     []string
		noNUL    bool // the whole line as one string, as setproctitle leaves it
		wantOK   bool
		wantName string
	}{
		{name: "bare", argv: []string{"tandem", "sidecar", "--", "sleep", "1"}, wantOK: true},
		{name: "absolute path", argv: []string{"/usr/local/bin/tandem", "sidecar", "--", "envoy"}, wantOK: true},
		{name: "init-copy path", argv: []string{"/tandem/tandem", "sidecar", "--done-signal", "USR1", "--name", "db", "--", "proxy"}, wantOK: true, wantName: "db"},
		{name: "relative path", argv: []string{"./tandem", "sidecar", "--", "x"}, wantOK: true},
		{name: "--name X", argv: []string{"tandem", "sidecar", "--name", "proxy", "--", "x"}, wantOK: true, wantName: "proxy"},
		{name: "--name=X", argv: []string{"tandem", "sidecar", "--name=proxy", "--", "x"}, wantOK: true, wantName: "proxy"},
		{name: "-name X", argv: []string{"tandem", "sidecar", "-name", "proxy", "--", "x"}, wantOK: true, wantName: "proxy"},
		{name: "-name=X", argv: []string{"tandem", "sidecar", "-name=proxy", "--", "x"}, wantOK: true, wantName: "proxy"},
		{name: "--name= empty", argv: []string{"tandem", "sidecar", "--name=", "--", "x"}, wantOK: true},
		// The flag parser keeps the last value; so must the finder.
		{name: "repeated --name, last wins", argv: []string{"tandem", "sidecar", "--name", "a", "--name", "b", "--", "x"}, wantOK: true, wantName: "b"},
		{name: "--name last with no value", argv: []string{"tandem", "sidecar", "--name"}, wantOK: true},
		{name: "no trailing NUL", argv: []string{"tandem", "sidecar"}, wantOK: true},
		// CMD's own flags are not tandem's.
		{name: "stops at --", argv: []string{"tandem", "sidecar", "--", "proxy", "--name", "other"}, wantOK: true},
		{name: "stops at -- after a name", argv: []string{"tandem", "sidecar", "--name", "proxy", "--", "app", "--name=other"}, wantOK: true, wantName: "proxy"},
		{name: "flag lookalikes", argv: []string{"tandem", "sidecar", "--names", "x", "--name-x", "y", "--", "z"}, wantOK: true},

		// Decoys: only argv[0] named tandem with argv[1] sidecar counts.
		{name: "tandem-sidecar binary", argv: []string{"/usr/bin/tandem-sidecar", "--name", "proxy"}},
		{name: "words reversed", argv: []string{"sidecar", "tandem"}},
		{name: "interpreter first", argv: []string{"python", "tandem", "sidecar", "--name", "proxy"}},
		{name: "shell CMD containing the words", argv: []string{"sh", "-c", "tandem sidecar --name proxy -- sleep 1"}},
		{name: "whole line in argv[0]", argv: []string{"tandem sidecar --name proxy -- sleep 1"}, noNUL: true},
		{name: "sidecarx", argv: []string{"tandem", "sidecarx", "--name", "proxy"}},
		{name: "tandemx", argv: []string{"tandemx", "sidecar"}},
		{name: "upper case", argv: []string{"TANDEM", "sidecar"}},
		{name: "tandem main", argv: []string{"tandem", "main", "--signal-peers", "--", "sidecar"}},
		{name: "tandem run wrapping a sidecar lookalike", argv: []string{"tandem", "run", "--", "tandem", "sidecar"}},
		{name: "tandem done", argv: []string{"tandem", "done", "--peer", "sidecar"}},
		// argv[1] must be sidecar, so global flags go after the command.
		{name: "global flag before the command", argv: []string{"tandem", "--log-level", "debug", "sidecar", "--", "x"}},
		{name: "argv[0] alone", argv: []string{"tandem"}},
		{name: "empty", argv: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmdline := []byte(strings.Join(tc.argv, "\x00"))
			if !tc.noNUL && len(tc.argv) > 0 {
				cmdline = append(cmdline, 0) // /proc/PID/cmdline ends every argument with NUL
			}
			name, ok := parseCmdline(cmdline)
			if ok != tc.wantOK || name != tc.wantName {
				t.Fatalf("parseCmdline(%q) = (%q, %v), want (%q, %v)", cmdline, name, ok, tc.wantName, tc.wantOK)
			}
		})
	}
}

// TestPeersProcFinder runs the /proc scan over a fake /proc: numeric entries
// only, itself skipped, gone processes and kernel threads skipped, and a
// sidecar not yet listening for the done signal skipped until it is.
func TestPeersProcFinder(t *testing.T) {
	root := t.TempDir()
	const self = 104
	cmdlines := map[string]string{
		"100":  "tandem\x00sidecar\x00--name\x00proxy\x00--\x00envoy\x00",
		"101":  "tandem\x00main\x00--signal-peers\x00--\x00job\x00",
		"102":  "", // kernel thread, or a zombie
		"104":  "tandem\x00sidecar\x00--\x00self\x00",
		"105":  "/usr/bin/tandem-sidecar\x00",
		"106":  "/bin/tandem\x00sidecar\x00--\x00logs\x00",
		"107":  "sh\x00-c\x00exec tandem sidecar\x00",
		"0":    "tandem\x00sidecar\x00",
		"self": "tandem\x00sidecar\x00",
	}
	for entry, cmdline := range cmdlines {
		if err := os.MkdirAll(filepath.Join(root, entry), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, entry, "cmdline"), []byte(cmdline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each process gets a main thread named tandem; listening sidecars have
	// a second thread named tandem-ready. 108 has just been exec'd: a sidecar
	// by its command line, but not listening yet, so not a peer yet.
	cmdlines["108"] = "tandem\x00sidecar\x00--name\x00late\x00--\x00envoy\x00"
	// 109 is a sidecar's CMD between fork and exec: the parent's command
	// line, and one thread, named after the thread that forked it.
	cmdlines["109"] = "tandem\x00sidecar\x00--name\x00proxy\x00--\x00envoy\x00"
	for entry := range cmdlines {
		threads := map[string]string{entry: "tandem"}
		if entry == "100" || entry == "106" || entry == "104" {
			threads["9"+entry] = ListeningMark
		}
		if entry == "109" {
			threads[entry] = ListeningMark
		}
		for tid, comm := range threads {
			dir := filepath.Join(root, entry, "task", tid)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, entry, "cmdline"), []byte(cmdlines[entry]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 103 exited between the directory listing and the read.
	if err := os.Mkdir(filepath.Join(root, "103"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "uptime"), []byte("1.0 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	finder := &ProcFinder{procRoot: root, self: self}
	peers, err := finder.FindPeers()
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(peers, func(a, b Peer) int { return a.PID - b.PID })
	want := []Peer{{PID: 100, Name: "proxy"}, {PID: 106}}
	if !slices.Equal(peers, want) {
		t.Fatalf("FindPeers() = %+v, want %+v", peers, want)
	}

	if _, err := (&ProcFinder{procRoot: filepath.Join(root, "missing")}).FindPeers(); err == nil {
		t.Fatal("FindPeers on a missing /proc: no error")
	}
}

// scriptedFinder returns what script says for each scan (1, 2, 3, ...).
type scriptedFinder struct {
	mu     sync.Mutex
	scans  int
	script func(scan int) ([]Peer, error)
}

var _ Finder = (*scriptedFinder)(nil)

func (f *scriptedFinder) FindPeers() ([]Peer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scans++
	return f.script(f.scans)
}

// SignalPeer signals by pid: the scripted peers are real processes.
func (f *scriptedFinder) SignalPeer(p Peer, sig unix.Signal) error {
	return unix.Kill(p.PID, sig)
}

func (f *scriptedFinder) scanCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scans
}

// sleeper is a real process that Signal may signal: `sleep` keeps the
// default disposition, so the first fatal signal it gets is the one it dies
// of, and a later SIGKILL cannot overwrite that (the kernel records the
// group exit code when the first fatal signal is sent).
type sleeper struct {
	cmd *exec.Cmd
}

func startSleeper(t *testing.T) *sleeper {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	s := &sleeper{cmd: cmd}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return s
}

func (s *sleeper) pid() int { return s.cmd.Process.Pid }

// diedOf ends the sleeper (SIGKILL, unless it is already dead) and returns
// the signal that killed it: the done signal if Signal reached it,
// SIGKILL if it had not.
func (s *sleeper) diedOf(t *testing.T) syscall.Signal {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		t.Fatalf("sleep %d ended with %v, not a signal", s.pid(), s.cmd.ProcessState)
	}
	return ws.Signal()
}

// signaledPIDs counts the "signaled sidecar peer" log lines per peer_pid.
func signaledPIDs(t *testing.T, logs *bytes.Buffer) map[int]int {
	t.Helper()
	counts := map[int]int{}
	scanner := bufio.NewScanner(bytes.NewReader(logs.Bytes()))
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.Contains(line, `"message":"signaled sidecar peer"`) {
			continue
		}
		_, rest, _ := strings.Cut(line, `"peer_pid":`)
		pid, err := strconv.Atoi(strings.TrimRight(strings.SplitN(rest, ",", 2)[0], "}"))
		if err != nil {
			t.Fatalf("log line without peer_pid: %s", line)
		}
		counts[pid]++
	}
	return counts
}

func TestSignalPeers(t *testing.T) {
	t.Parallel()
	// The bound a test must never reach: it is the answer only in the
	// timeout cases, which use a short one.
	const longTimeout = 30 * time.Second

	tests := []struct {
		name     string
		sleepers int      // real processes, s0, s1, ...
		names    []string // --peer
		timeout  time.Duration
		// script returns the peers visible at scan n; pids[i] is sleeper i.
		script       func(scan int, pids []int) ([]Peer, error)
		wantSignaled []int    // indexes of sleepers that must get the done signal
		wantScans    int      // 0: don't check
		wantErr      error    // errors.Is target; nil means success
		wantMsg      []string // substrings of the error
		notInMsg     []string
	}{
		{
			name: "one peer, found at once", sleepers: 1, timeout: longTimeout,
			script:       func(_ int, p []int) ([]Peer, error) { return []Peer{{PID: p[0]}}, nil },
			wantSignaled: []int{0}, wantScans: 1,
		},
		{
			// Containers start in parallel: the sidecar may appear after the
			// main ended.
			name: "peer appears on the 3rd scan", sleepers: 1, timeout: longTimeout,
			script: func(scan int, p []int) ([]Peer, error) {
				if scan < 3 {
					return nil, nil
				}
				return []Peer{{PID: p[0]}}, nil
			},
			wantSignaled: []int{0}, wantScans: 3,
		},
		{
			name: "every peer found is signaled", sleepers: 2, timeout: longTimeout,
			script: func(_ int, p []int) ([]Peer, error) {
				return []Peer{{PID: p[0], Name: "proxy"}, {PID: p[1]}}, nil
			},
			wantSignaled: []int{0, 1}, wantScans: 1,
		},
		{
			name: "named: only that one", sleepers: 2, names: []string{"proxy"}, timeout: longTimeout,
			script: func(_ int, p []int) ([]Peer, error) {
				return []Peer{{PID: p[0], Name: "logs"}, {PID: p[1], Name: "proxy"}}, nil
			},
			wantSignaled: []int{1}, wantScans: 1,
		},
		{
			// proxy is seen on every scan but signaled once, while logs is
			// still awaited.
			name: "named: waits for every name, signals each once", sleepers: 3,
			names: []string{"proxy", "logs"}, timeout: longTimeout,
			script: func(scan int, p []int) ([]Peer, error) {
				peers := []Peer{{PID: p[0], Name: "proxy"}, {PID: p[2], Name: "other"}}
				if scan >= 3 {
					peers = append(peers, Peer{PID: p[1], Name: "logs"})
				}
				return peers, nil
			},
			wantSignaled: []int{0, 1}, wantScans: 3,
		},
		{
			name: "none ever: timeout", timeout: 300 * time.Millisecond,
			script:  func(int, []int) ([]Peer, error) { return nil, nil },
			wantErr: ErrNotFound,
			wantMsg: []string{"no `tandem sidecar` process appeared", "within 300ms", "shareProcessNamespace"},
		},
		{
			name: "named missing: timeout names them, the found one is still signaled", sleepers: 1,
			names: []string{"proxy", "logs", "db"}, timeout: 300 * time.Millisecond,
			script:       func(_ int, p []int) ([]Peer, error) { return []Peer{{PID: p[0], Name: "proxy"}}, nil },
			wantSignaled: []int{0},
			wantErr:      ErrNotFound,
			wantMsg:      []string{"logs", "db", "within 300ms", "TANDEM_NAME"},
			notInMsg:     []string{"proxy"},
		},
		{
			// A pid above PID_MAX_LIMIT (4194304) never exists: ESRCH, as
			// for a peer that exited between the scan and the signal. It
			// does not count as signaled.
			name: "peer gone before the signal: keep looking", timeout: 300 * time.Millisecond,
			script:  func(int, []int) ([]Peer, error) { return []Peer{{PID: 1 << 30}}, nil },
			wantErr: ErrNotFound,
		},
		{
			name: "finder fails", timeout: longTimeout,
			script:  func(int, []int) ([]Peer, error) { return nil, os.ErrPermission },
			wantErr: os.ErrPermission, wantMsg: []string{"find peers"}, wantScans: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sleepers []*sleeper
			var pids []int
			for range tc.sleepers {
				s := startSleeper(t)
				sleepers = append(sleepers, s)
				pids = append(pids, s.pid())
			}
			finder := &scriptedFinder{script: func(scan int) ([]Peer, error) { return tc.script(scan, pids) }}
			var logs bytes.Buffer
			opts := Options{Enabled: true, Names: tc.names, Timeout: tc.timeout}
			err := Signal(context.Background(), finder, opts, unix.SIGUSR2, zerolog.New(&logs))

			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("signalPeers: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("signalPeers error = %v, want %v", err, tc.wantErr)
			}
			for _, s := range tc.wantMsg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			for _, s := range tc.notInMsg {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q names %q, which was found", err, s)
				}
			}
			if tc.wantScans > 0 && finder.scanCount() != tc.wantScans {
				t.Errorf("scans = %d, want %d", finder.scanCount(), tc.wantScans)
			}
			logged := signaledPIDs(t, &logs)
			for i, s := range sleepers {
				want := syscall.SIGKILL
				if slices.Contains(tc.wantSignaled, i) {
					want = syscall.SIGUSR2
					if logged[s.pid()] != 1 {
						t.Errorf("sleeper %d signaled %d times in the log, want once:\n%s", i, logged[s.pid()], logs.String())
					}
				}
				if got := s.diedOf(t); got != want {
					t.Errorf("sleeper %d died of %v, want %v (USR2: signaled by signalPeers; KILL: untouched)", i, got, want)
				}
			}
		})
	}
}

// A cancelled context (main's announce when the pod is deleted) ends the
// search without waiting for --peer-timeout.
func TestSignalPeersCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	finder := &scriptedFinder{script: func(scan int) ([]Peer, error) {
		if scan == 2 {
			cancel()
		}
		return nil, nil
	}}
	opts := Options{Enabled: true, Timeout: time.Hour}
	if err := Signal(ctx, finder, opts, unix.SIGUSR2, zerolog.Nop()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("signalPeers after cancel = %v, want ErrNotFound", err)
	}
	// Without the cancel, the search would go on for the hour; one more
	// scan is possible when a tick is due at the same time.
	if n := finder.scanCount(); n < 2 {
		t.Fatalf("scans = %d, want at least 2", n)
	}
}

// EPERM (another UID, no CAP_KILL) must say which process, why, and the fix.
// The integration test provokes it for real as a non-root user.
func TestPeersSignalError(t *testing.T) {
	err := peerSignalError(Peer{PID: 42, Name: "proxy"}, unix.SIGUSR2, unix.EPERM)
	if !errors.Is(err, unix.EPERM) {
		t.Fatalf("%v does not wrap EPERM", err)
	}
	for _, want := range []string{"pid 42", `"proxy"`, "SIGUSR2", "operation not permitted", "another user", "one runAsUser", "as root can already signal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	other := peerSignalError(Peer{PID: 7}, unix.SIGUSR1, unix.EINVAL)
	if !errors.Is(other, unix.EINVAL) || strings.Contains(other.Error(), "runAsUser") {
		t.Errorf("non-EPERM error %q: want it wrapped, without the UID advice", other)
	}
}
