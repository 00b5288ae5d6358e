package integration

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// shellSession is an interactive bash on a pseudo-terminal, driven as a
// person would type.
type shellSession struct {
	t      *testing.T
	tty    *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	grew   chan struct{}
	cursor int
}

func startShell(t *testing.T) *shellSession {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed to test job control: %v", err)
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i")
	cmd.Env = append(os.Environ(), "PS1=PROMPT> ", "TANDEM_LOG_FORMAT=json", "TERM=dumb")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	s := &shellSession{t: t, tty: tty, grew: make(chan struct{}, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
		if t.Failed() {
			t.Logf("terminal:\n%s", s.text())
		}
	})
	s.expect("PROMPT> ")
	return s
}

func (s *shellSession) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

func (s *shellSession) send(keys string) {
	s.t.Helper()
	if _, err := io.WriteString(s.tty, keys); err != nil {
		s.t.Fatal(err)
	}
}

// expect waits until want appears after what earlier expects consumed.
func (s *shellSession) expect(want string) {
	s.t.Helper()
	deadline := time.After(testTimeout)
	for {
		text := s.text()
		if i := strings.Index(text[s.cursor:], want); i >= 0 {
			s.cursor += i + len(want)
			return
		}
		select {
		case <-s.grew:
		case <-deadline:
			s.t.Fatalf("the terminal never showed %q", want)
		}
	}
}

// Ctrl-Z stops CMD and tandem with it: the shell says Stopped and its prompt
// comes back and works; fg gives the terminal back to CMD; Ctrl-C then
// reaches CMD, and tandem exits 130. (tini leaves the terminal locked.)
func TestRunJobControl(t *testing.T) {
	sh := startShell(t)
	// run logs at warn unless told: these are info lines.
	sh.send(tandemBin + " --log-level info -- sleep 30\n")
	sh.expect(`"event":"cmd-started"`)
	sh.send("\x1a") // Ctrl-Z
	sh.expect(`"event":"cmd-stopped"`)
	sh.expect("Stopped")
	sh.expect("PROMPT> ")
	sh.send("echo the shell answers\n")
	sh.expect("the shell answers")
	sh.expect("PROMPT> ")
	sh.send("fg\n")
	sh.expect(`"event":"cmd-continued"`)
	sh.send("\x03") // Ctrl-C: to sleep, which holds the terminal again
	sh.expect(`"event":"exiting"`)
	sh.expect("PROMPT> ")
	sh.send("echo code=$?\n")
	sh.expect("code=130")
}
