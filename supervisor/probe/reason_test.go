package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/tandem-sh/tandem/internal/testkit"
	"github.com/tandem-sh/tandem/supervisor/process"
)

// The reasons a wait names are the user's words, whatever wraps them.
func TestReason(t *testing.T) {
	wrapped := func(err error) error { return fmt.Errorf("probe: %w", err) }
	tests := []struct {
		err  error
		want string
	}{
		{wrapped(&StatusError{Code: 503}), "HTTP 503"},
		{wrapped(&ExitError{Code: 1}), "exit status 1"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", unix.ECONNREFUSED)}, "connection refused"},
		{&os.PathError{Op: "stat", Path: "/x", Err: unix.ENOENT}, "no such file or directory"},
		{wrapped(context.DeadlineExceeded), "timed out"},
		{&net.DNSError{Err: "no such host", Name: "db"}, "no such host"},
		{&process.StartError{Name: "pg_isready", NotFound: true, Err: os.ErrNotExist}, `start "pg_isready": file does not exist`},
		{errors.New("something else"), "something else"},
	}
	for _, tt := range tests {
		if got := Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// The real prober's failures give the reasons SPEC names.
func TestRealProberReasons(t *testing.T) {
	dir := t.TempDir()
	closedPort := testkit.ClosedPort(t)
	for cond, want := range map[string]string{
		"file:" + filepath.Join(dir, "absent"):      "no such file or directory",
		"tcp:127.0.0.1:" + strconv.Itoa(closedPort): "connection refused",
	} {
		err := (&Real{}).Probe(context.Background(), testkit.Parsed(t, Parse, cond)[0], 5*time.Second)
		if got := Reason(err); got != want {
			t.Errorf("%s: reason %q (from %v), want %q", cond, got, err, want)
		}
	}
}

// While waiting, the first failure of each kind for a condition is logged
// at info, the same failure again at debug only.
func TestWaitLogsEachKindOfFailureOnce(t *testing.T) {
	reasons := []error{unix.ECONNREFUSED, unix.ECONNREFUSED, &StatusError{Code: 503}, &StatusError{Code: 503}, unix.ECONNREFUSED, nil}
	prober := &scriptedProber{errs: reasons}
	var out bytes.Buffer
	log := zerolog.New(&out).Level(zerolog.InfoLevel)
	cond := testkit.Parsed(t, Parse, "tcp:127.0.0.1:1")
	if _, err := Wait(context.Background(), prober, cond, time.Millisecond, 0, log); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		var l struct{ Level, Event, Reason string }
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, l.Level+" "+l.Event+" "+l.Reason)
	}
	want := []string{"info condition-not-holding connection refused", "info condition-not-holding HTTP 503", "info condition-holds "}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("info lines %q, want %q", got, want)
	}
}

// scriptedProber fails with errs in turn (nil: holds).
type scriptedProber struct {
	errs  []error
	try   int
	onTry func(try int) // called with the try's number, from 1
}

func (p *scriptedProber) Probe(context.Context, Condition, time.Duration) error {
	err := p.errs[min(p.try, len(p.errs)-1)]
	p.try++
	if p.onTry != nil {
		p.onTry(p.try)
	}
	return err
}

// A try cut short by the end of the whole wait keeps the reason of the last
// full try: "connection refused" says more than "timed out".
func TestWaitKeepsLastReasonWhenCutShort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	prober := &scriptedProber{errs: []error{unix.ECONNREFUSED, context.Canceled}, onTry: func(try int) {
		if try == 2 {
			cancel()
		}
	}}
	pending, err := Wait(ctx, prober, testkit.Parsed(t, Parse, "tcp:127.0.0.1:1"), time.Millisecond, 0, zerolog.Nop())
	if !errors.Is(err, context.Canceled) || len(pending) != 1 || pending[0].Reason != "connection refused" {
		t.Fatalf("Wait = %v, %v; want the condition pending with reason connection refused", pending, err)
	}
}
