package supervisor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/textproto"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/probe"
)

// quitEndpoint serves one quit call: it reads the request, writes answer
// (nothing: it closes at once, as a program that exits on the call does).
func quitEndpoint(t *testing.T, answer string) probe.Target {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := textproto.NewReader(bufio.NewReader(conn))
		if _, err := r.ReadLine(); err != nil {
			return
		}
		if _, err := r.ReadMIMEHeader(); err != nil {
			return
		}
		_, _ = io.WriteString(conn, answer)
	}()
	target, err := probe.ParseURL("http://" + l.Addr().String() + "/quitquitquit")
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// The quit call's outcome is one line: an endpoint that takes the request
// and closes without answering was called, not failed.
func TestHTTPQuitterLogsTheOutcome(t *testing.T) {
	tests := []struct {
		name, answer, event string
		status              int
		answered            bool
	}{
		{"answers 200", "HTTP/1.1 200 OK\r\n\r\n", cmdline.EventQuitCalled, 200, true},
		{"answers 500", "HTTP/1.1 500 Internal Server Error\r\n\r\n", cmdline.EventQuitFailed, 500, true},
		{"closes without answering", "", cmdline.EventQuitCalled, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			httpQuitter{}.Quit(context.Background(), []probe.Target{quitEndpoint(t, tt.answer)}, 5*time.Second, zerolog.New(&out))
			var line struct {
				Event    string
				Status   int
				Answered *bool
			}
			if err := json.Unmarshal(out.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", out.String(), err)
			}
			// quit-called always says whether it was answered.
			answered := line.Answered != nil && *line.Answered || line.Answered == nil && line.Event != cmdline.EventQuitCalled
			if line.Event != tt.event || line.Status != tt.status || answered != tt.answered {
				t.Errorf("logged %s", out.String())
			}
		})
	}
}
