package donewatch

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// A done condition half met for longer than StallAfter is said once,
// naming the files awaited and those there; the condition, once met, is
// done as ever.
func TestDoneWatcherSaysWhatItAwaits(t *testing.T) {
	dir := t.TempDir()
	mainDone, otherStopped := filepath.Join(dir, "main.done"), filepath.Join(dir, "cache.stopped")
	logs, logWriter := io.Pipe()
	lines := make(chan map[string]any, 16)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			var line map[string]any
			if json.Unmarshal(scanner.Bytes(), &line) == nil {
				lines <- line
			}
		}
	}()
	t.Cleanup(func() { logWriter.Close() })
	const stall = 7 * time.Second
	clk := newManualClock()
	w, err := New(Config{Paths: []string{mainDone, otherStopped}, Poll: time.Hour, StallAfter: stall,
		Clock: clk, Log: zerolog.New(logWriter)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.closeWatch)
	out := make(chan Event, 1)
	writeDone(t, mainDone, statusfile.File{Event: "done"})
	if _, done := w.Check(); done {
		t.Fatal("done with one file of two")
	}
	runWatcher(t, w, out)
	clk.fire(t, stall)
	bound := time.After(waitBound)
	for {
		var line map[string]any
		select {
		case line = <-lines:
		case <-bound:
			t.Fatalf("no %s line", cmdline.EventDoneFilesAwaited)
		}
		if line["event"] != cmdline.EventDoneFilesAwaited {
			continue
		}
		if line["level"] != "warn" || !slices.Equal(line["waiting_for"].([]any), []any{otherStopped}) || !slices.Equal(line["present"].([]any), []any{mainDone}) {
			t.Fatalf("line %v: want a warning awaiting %s with %s there", line, otherStopped, mainDone)
		}
		break
	}
	writeDone(t, otherStopped, statusfile.File{Event: "stopped"})
	if ev := waitDone(t, out); ev.Source != SourceDoneFile {
		t.Fatalf("event %+v", ev)
	}
}
