package probe

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/testkit"
)

func TestParseCondition(t *testing.T) {
	tests := []struct {
		in      string
		kind    conditionKind
		check   func(Condition) bool
		wantErr string // substring; "" means success
	}{
		{in: "file:/shared/ready", kind: condFile, check: func(c Condition) bool { return c.path == "/shared/ready" }},
		{in: "FILE:relative/path", kind: condFile, check: func(c Condition) bool { return c.path == "relative/path" }},
		{in: "file:/a:b", kind: condFile, check: func(c Condition) bool { return c.path == "/a:b" }},
		{in: "tcp:127.0.0.1:5432", kind: condTCP, check: func(c Condition) bool { return c.addr == "127.0.0.1:5432" }},
		{in: "tcp:[::1]:80", kind: condTCP, check: func(c Condition) bool { return c.addr == "[::1]:80" }},
		{in: "tcp:db.internal:65535", kind: condTCP},
		{in: "http://127.0.0.1:15021/healthz/ready", kind: condHTTP, check: func(c Condition) bool {
			return c.http.hostPort == "127.0.0.1:15021" && c.http.path == "/healthz/ready"
		}},
		{in: "HTTP://localhost", kind: condHTTP, check: func(c Condition) bool { return c.http.hostPort == "localhost:80" }},
		{in: "exec:pg_isready -h 127.0.0.1", kind: condExec, check: func(c Condition) bool {
			return strings.Join(c.argv, "|") == "pg_isready|-h|127.0.0.1"
		}},
		{in: "exec:  /bin/true  ", kind: condExec, check: func(c Condition) bool { return len(c.argv) == 1 && c.argv[0] == "/bin/true" }},

		{in: "https://127.0.0.1:8443/ready", wantErr: "use exec: with the image's own client"},
		{in: "HTTPS://x/", wantErr: "https is not supported"},
		{in: "tcp:localhost", wantErr: `condition "tcp:localhost": expected tcp:HOST:PORT`},
		{in: "tcp::5432", wantErr: `condition "tcp::5432"`},
		{in: "tcp:host:0", wantErr: "port from 1 to 65535"},
		{in: "tcp:host:65536", wantErr: "port from 1 to 65535"},
		{in: "tcp:host:http", wantErr: "port from 1 to 65535"},
		{in: "tcp:", wantErr: `condition "tcp:"`},
		{in: "exec:", wantErr: `condition "exec:": exec: needs a program`},
		{in: "exec: \t ", wantErr: "exec: needs a program"},
		{in: "file:", wantErr: `condition "file:": file: needs a path`},
		{in: "http://", wantErr: `"http://": expected http://HOST[:PORT]/PATH`},
		{in: "http:/x", wantErr: "expected http://HOST"},
		{in: "http://h:99999/", wantErr: "port"},
		{in: "http://]", wantErr: "is not a host name"}, // found by FuzzParseCondition
		{in: "ftp://host/file", wantErr: `unknown kind "ftp"`},
		{in: "/shared/ready", wantErr: `unknown kind "/shared/ready"`},
		{in: "", wantErr: `condition "": unknown kind`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := Parse(tt.in)
			if testkit.WantsError(t, err, tt.wantErr, "Parse(%q) = %+v", tt.in, c) {
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if c.kind != tt.kind || c.String() != tt.in || (tt.check != nil && !tt.check(c)) {
				t.Errorf("Parse(%q) = %+v", tt.in, c)
			}
		})
	}
}

// Names joins the conditions as written, for a log line or an error.
func TestNames(t *testing.T) {
	var conds []Condition
	for _, v := range []string{"file:/a", "tcp:h:1"} {
		c, err := Parse(v)
		if err != nil {
			t.Fatalf("Parse(%q): %v", v, err)
		}
		conds = append(conds, c)
	}
	if got := Names(conds); got != "file:/a, tcp:h:1" {
		t.Errorf("Names = %q; want %q", got, "file:/a, tcp:h:1")
	}
}

// fakeProber makes each condition hold from its Nth try (0: never), and can
// run a hook on every try.
type fakeProber struct {
	mu         sync.Mutex
	holdsFrom  map[string]int
	tries      map[string]int
	timeouts   []time.Duration
	onEachTry  func(try int)
	totalTries int
}

var _ Prober = (*fakeProber)(nil)

func newFakeProber(holdsFrom map[string]int) *fakeProber {
	return &fakeProber{holdsFrom: holdsFrom, tries: map[string]int{}}
}

func (p *fakeProber) Probe(_ context.Context, c Condition, timeout time.Duration) error {
	p.mu.Lock()
	p.tries[c.raw]++
	p.totalTries++
	p.timeouts = append(p.timeouts, timeout)
	try, from, hook := p.tries[c.raw], p.holdsFrom[c.raw], p.onEachTry
	total := p.totalTries
	p.mu.Unlock()
	if hook != nil {
		hook(total)
	}
	if from > 0 && try >= from {
		return nil
	}
	return errors.New("not yet")
}

func TestWaitConditions(t *testing.T) {
	tests := []struct {
		name        string
		holdsFrom   map[string]int
		timeout     time.Duration
		cancelAfter int // cancel the context on this try (0: never)
		wantPending []string
		wantErr     error
		wantTries   map[string]int // exact counts, where they are fixed
	}{
		{
			name:      "all hold at once",
			holdsFrom: map[string]int{"file:/a": 1, "file:/b": 1},
			wantTries: map[string]int{"file:/a": 1, "file:/b": 1},
		},
		{
			name:      "hold after some tries; one that held is not probed again",
			holdsFrom: map[string]int{"file:/a": 1, "file:/b": 3},
			wantTries: map[string]int{"file:/a": 1, "file:/b": 3},
		},
		{
			name:        "timeout returns what never held",
			holdsFrom:   map[string]int{"file:/a": 2, "file:/b": 0},
			timeout:     30 * time.Millisecond,
			wantPending: []string{"file:/b"},
			wantErr:     ErrTimeout,
		},
		{
			name:        "context cancelled",
			holdsFrom:   map[string]int{"file:/a": 0, "file:/b": 0},
			cancelAfter: 3,
			wantPending: []string{"file:/a", "file:/b"},
			wantErr:     context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conds := testkit.Parsed(t, Parse, "file:/a", "file:/b")
			prober := newFakeProber(tt.holdsFrom)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelAfter > 0 {
				prober.onEachTry = func(try int) {
					if try == tt.cancelAfter {
						cancel()
					}
				}
			}
			pending, err := Wait(ctx, prober, conds, time.Millisecond, tt.timeout, zerolog.Nop())
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			var names []string
			for _, p := range pending {
				names = append(names, p.raw)
				if p.Reason != "not yet" {
					t.Errorf("%s pending with reason %q, want the prober's last error, \"not yet\"", p.raw, p.Reason)
				}
			}
			if got := strings.Join(names, ", "); got != strings.Join(tt.wantPending, ", ") {
				t.Errorf("pending = %q, want %q", got, tt.wantPending)
			}
			for name, want := range tt.wantTries {
				if got := prober.tries[name]; got != want {
					t.Errorf("%s probed %d times, want %d", name, got, want)
				}
			}
		})
	}
}

// Each try gets one second or the interval, whichever is longer.
func TestWaitConditionsProbeTimeout(t *testing.T) {
	for _, tt := range []struct{ interval, want time.Duration }{
		{time.Millisecond, time.Second},
		{250 * time.Millisecond, time.Second},
		{3 * time.Second, 3 * time.Second},
	} {
		prober := newFakeProber(map[string]int{"file:/a": 1})
		if _, err := Wait(context.Background(), prober, testkit.Parsed(t, Parse, "file:/a"), tt.interval, 0, zerolog.Nop()); err != nil {
			t.Fatal(err)
		}
		if len(prober.timeouts) != 1 || prober.timeouts[0] != tt.want {
			t.Errorf("interval %s: probe timeouts %v, want [%s]", tt.interval, prober.timeouts, tt.want)
		}
	}
}

func TestRealProber(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "present")
	if err := os.WriteFile(present, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	closedPort := testkit.ClosedPort(t)
	// exec: probes need the reaper, whose wait4(-1) would steal the children
	// of every other test in this binary (os/exec's); they are tested on
	// the built binary (integration/fault_condition_test.go).
	prober := &Real{}
	tests := []struct {
		cond  string
		holds bool
	}{
		{"file:" + present, true},
		{"file:" + filepath.Join(dir, "absent"), false},
		{"tcp:" + listener.Addr().String(), true},
		{"tcp:127.0.0.1:" + strconv.Itoa(closedPort), false},
	}
	for _, tt := range tests {
		c := testkit.Parsed(t, Parse, tt.cond)[0]
		err := prober.Probe(context.Background(), c, 5*time.Second)
		if (err == nil) != tt.holds {
			t.Errorf("Probe(%s) = %v, want holds=%v", tt.cond, err, tt.holds)
		}
	}
}
