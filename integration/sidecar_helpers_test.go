package integration

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// Helper programs and test utilities shared by the sidecar, main, done and
// wait tests.

// sc-crash-once STATE OUT: the first run creates STATE and exits 3; later
// runs behave as `record-signals OUT 15` (ready line, exit 0 on SIGTERM).
func scHelperCrashOnce(args []string) int {
	if _, err := os.Stat(args[0]); errors.Is(err, os.ErrNotExist) {
		appendLine(args[0], "crashed")
		return 3
	}
	return helperRecordSignals([]string{args[1], "15"})
}

// sc-quit-exits ADDR OUT: listen on ADDR, write "ready PID" to OUT, and
// exit 0 as soon as a request has been read, without answering it: a
// program whose quit endpoint ends it before the answer (cloud-sql-proxy).
func scHelperQuitExits(args []string) int {
	l, err := net.Listen("tcp", args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	appendLine(args[1], fmt.Sprintf("ready %d", os.Getpid()))
	conn, err := l.Accept()
	if err != nil {
		return 2
	}
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return 2
		}
		if line == "\r\n" {
			return 0
		}
	}
}

// sc-observe FILE OUT: write "present" or "absent" for FILE to OUT, exit 0.
func scHelperObserve(args []string) int {
	state := "present"
	if _, err := os.Stat(args[0]); errors.Is(err, os.ErrNotExist) {
		state = "absent"
	}
	appendLine(args[1], state)
	return 0
}

// sc-hold-inotify OUT: open inotify instances until the kernel refuses
// (max_user_instances for this uid is used up), write "held N ERRNO" to OUT
// and keep them until killed. Run as a dedicated uid, it makes inotify
// unavailable to every other process of that uid, as a crowded node does.
func scHelperHoldInotify(args []string) int {
	held := 0
	var err error
	for {
		var fd int
		fd, err = unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			break
		}
		held++
		_ = fd // kept open on purpose
	}
	appendLine(args[0], fmt.Sprintf("held %d %v", held, err))
	select {}
}

// scStatusFile is a done or ready file as tandem writes it.
type scStatusFile struct {
	Version  int    `json:"version"`
	Name     string `json:"name"`
	Event    string `json:"event"`
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal"`
	Reason   string `json:"reason"`
	Time     string `json:"time"`
}

// scReadStatus parses the one JSON line of a done or ready file; every field
// must be present, so a writer that drops one fails here.
func scReadStatus(t testing.TB, path string) scStatusFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	text := string(data)
	if strings.Count(text, "\n") != 1 || !strings.HasSuffix(text, "\n") {
		t.Fatalf("%s: want exactly one line ending in a newline, got %q", path, text)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatalf("%s: not JSON: %v: %q", path, err, text)
	}
	for _, key := range []string{"version", "name", "event", "exitCode", "signal", "reason", "time"} {
		if _, ok := fields[key]; !ok {
			t.Fatalf("%s: field %q missing: %q", path, key, text)
		}
	}
	var f scStatusFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v: %q", path, err, text)
	}
	if f.Version != 1 {
		t.Fatalf("%s: version %d, want 1", path, f.Version)
	}
	if _, err := time.Parse(time.RFC3339Nano, f.Time); err != nil {
		t.Fatalf("%s: time %q is not RFC 3339: %v", path, f.Time, err)
	}
	return f
}

// scWantStatus compares the fields that matter of a done file.
func scWantStatus(t testing.TB, path string, event string, exitCode int, signal, reason string) scStatusFile {
	t.Helper()
	f := scReadStatus(t, path)
	if f.Event != event || f.ExitCode != exitCode || f.Signal != signal || f.Reason != reason {
		t.Fatalf("%s: got event=%q exitCode=%d signal=%q reason=%q; want event=%q exitCode=%d signal=%q reason=%q",
			path, f.Event, f.ExitCode, f.Signal, f.Reason, event, exitCode, signal, reason)
	}
	return f
}

// scWriteFile writes path the plain way (a `touch`-like writer, not atomic).
func scWriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// announceDone writes the done file as a main in another container does,
// with `tandem done --file DONE ARGS...` (atomically).
func announceDone(t testing.TB, done string, args ...string) {
	t.Helper()
	if code, _, stderr := runTandem(t, procOptions{}, append([]string{"done", "--file", done}, args...)...); code != 0 {
		t.Fatalf("tandem done exited %d:\n%s", code, stderr)
	}
}

// scMessages is every log line's event so far, in order.
func (p *tandemProc) scMessages() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	msgs := make([]string, len(p.lines))
	for i, l := range p.lines {
		msgs[i] = l.Field("event")
	}
	return msgs
}

// scLinesWith is every log line so far with this event.
func (p *tandemProc) scLinesWith(msg string) []kit.Line {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []kit.Line
	for _, l := range p.lines {
		if l.Is(msg) {
			out = append(out, l)
		}
	}
	return out
}

// scWantOrder fails unless the messages were logged, each first occurrence
// after the previous one.
func (p *tandemProc) scWantOrder(msgs ...string) {
	p.t.Helper()
	all := p.scMessages()
	at := -1
	for _, want := range msgs {
		found := -1
		for i := at + 1; i < len(all); i++ {
			if all[i] == want {
				found = i
				break
			}
		}
		if found < 0 {
			p.t.Fatalf("log messages out of order: want %q after line %d; messages: %q", want, at, all)
		}
		at = found
	}
}

// scWantExit waits for tandem to exit and checks its code and the reason of
// its last log line.
func (p *tandemProc) scWantExit(code int, reason string) {
	p.t.Helper()
	if got := p.wait(); got != code {
		p.t.Fatalf("tandem exit code %d, want %d", got, code)
	}
	exiting := p.waitEvent("exiting")
	if exiting.Num("exit_code") != code || (reason != "" && exiting.Field("reason") != reason) {
		p.t.Fatalf("tandem exiting with code %d reason %q, want %d %q", exiting.Num("exit_code"), exiting.Field("reason"), code, reason)
	}
}

// scUnlistenedPort reserves a loopback port: a bound socket that is not yet
// listening refuses connections, and no other process can take the port.
// listen makes it accept (the kernel completes handshakes from the backlog).
func scUnlistenedPort(t testing.TB) (port int, listen func()) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*unix.SockaddrInet4).Port, func() {
		if err := unix.Listen(fd, 64); err != nil {
			t.Fatal(err)
		}
	}
}

// scWaitWatched blocks until process pid holds an inotify watch on dir.
// Adding a watch has no event of its own, but /proc/PID/fdinfo lists every
// watch (inode and device) of an inotify descriptor, so the test can wait for
// that state instead of sleeping.
func scWaitWatched(t testing.TB, pid int, dir string) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("ino:%x ", st.Ino)
	deadline := time.Now().Add(testTimeout)
	for {
		if scWatches(pid, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d has no inotify watch on %s within %s", pid, dir, testTimeout)
		}
		time.Sleep(2 * time.Millisecond) // re-read a kernel state; not a synchronisation guess
	}
}

func scWatches(pid int, ino string) bool {
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(fdDir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil || target != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
		if err == nil && strings.Contains(string(info), ino) {
			return true
		}
	}
	return false
}

// scHTTPAddr is host:port of a listener, for URLs.
func scHTTPAddr(l net.Listener) string { return l.Addr().String() }

// runningMain holds done's lifeline as a running `tandem main` does: the
// sidecar has a main to outlive. finish ends it as a main ends, the done
// file first, then the lifeline; the test's end lets go in any case.
type runningMain struct {
	t    *testing.T
	done string
	fd   int
}

func holdLifeline(t *testing.T, done string) *runningMain {
	t.Helper()
	path := done + ".lifeline"
	tmp := path + ".tmp"
	mustDo(t, unix.Mkfifo(tmp, 0o666))
	// This pod's, not another's: mkfifo(2) gives about one time in a
	// thousand an mtime whose nanoseconds read as another pod's tag.
	at := time.Unix(time.Now().Unix(), 1)
	mustDo(t, os.Chtimes(tmp, at, at))
	fd, err := unix.Open(tmp, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, os.Rename(tmp, path))
	m := &runningMain{t: t, done: done, fd: fd}
	t.Cleanup(m.release)
	return m
}

// terminating marks the main's termination, as its tandem does when the
// pod's deletion signals it: the sidecar's own signal is then the pod's
// deletion, which --outlive-main holds.
func (m *runningMain) terminating() {
	m.t.Helper()
	scWriteFile(m.t, m.done+".terminating", "")
}

// finish writes the done file, then lets go of the lifeline.
func (m *runningMain) finish() {
	m.t.Helper()
	scWriteFile(m.t, m.done, "")
	m.release()
}

func (m *runningMain) release() {
	if m.fd >= 0 {
		unix.Close(m.fd)
		m.fd = -1
	}
}
