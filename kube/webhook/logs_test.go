package webhook

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// logStream is a Server's log as parsed lines, read as they come.
type logStream struct {
	t     *testing.T
	lines chan map[string]any
	w     *io.PipeWriter
}

// newLogStream returns a debug-level logger whose lines next reads. Close
// it once the server has stopped.
func newLogStream(t *testing.T) (*logStream, zerolog.Logger) {
	r, w := io.Pipe()
	l := &logStream{t: t, lines: make(chan map[string]any, 256), w: w}
	go func() {
		scanner := bufio.NewScanner(r)
		for scanner.Scan() {
			var line map[string]any
			if json.Unmarshal(scanner.Bytes(), &line) != nil {
				line = map[string]any{"not-json": scanner.Text()}
			}
			l.lines <- line
		}
		close(l.lines)
	}()
	return l, zerolog.New(w).Level(zerolog.DebugLevel)
}

// next waits for the next line of event, failing on a line not JSON.
func (l *logStream) next(event string) map[string]any {
	l.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line := <-l.lines:
			if _, bad := line["not-json"]; bad {
				l.t.Fatalf("a log line that is not JSON: %v", line)
			}
			if line["event"] == event {
				return line
			}
		case <-deadline:
			l.t.Fatalf("no %s line", event)
		}
	}
}

// drain reads the rest, so the server never blocks on its log.
func (l *logStream) drain() {
	go func() {
		for range l.lines {
		}
	}()
}

func (l *logStream) Close() { l.w.Close() }
