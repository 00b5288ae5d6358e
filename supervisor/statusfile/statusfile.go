// Package statusfile reads and writes tandem's one-line JSON files (done,
// ready, stopped): written atomically, read with a bound.
package statusfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Reasons in the files, and in tandem's own last log line.
const (
	ReasonExited      = "exited"
	ReasonSignaled    = "signaled"
	ReasonWaitTimeout = "wait-timeout"
	ReasonInterrupted = "interrupted"
	ReasonStartFailed = "start-failed"
	ReasonAnnounced   = "announced"
	ReasonReady       = "ready"
	ReasonStopped     = "stopped" // a sidecar's CMD stopped because the main was done
	ReasonError       = "error"   // tandem itself failed

	EventDone    = "done"
	EventReady   = "ready"
	EventStopped = "stopped"
	// A main's termination mark, beside its done file: the pod's stop
	// reached it.
	EventTerminating = "terminating"

	statusFileVersion = 1
	maxStatusFileRead = 64 << 10
)

// ReasonRestartLimit: a sidecar's CMD crashed more than --max-restarts
// times within --restart-window, and tandem gave up.
const ReasonRestartLimit = "restart-limit"

// ReasonSidecarLost: main --needs, a needed sidecar's tandem ended before the
// main was done.
const ReasonSidecarLost = "sidecar-lost"

// File is the one JSON line of a done or ready file.
type File struct {
	Version  int    `json:"version"`
	Name     string `json:"name"`
	Event    string `json:"event"`
	ExitCode int    `json:"exitCode"`
	Signal   string `json:"signal"`
	Reason   string `json:"reason"`
	// Host is the writer's hostname, which a pod's containers share: a
	// reader in another pod (a volume shared by mistake) can tell.
	Host string    `json:"host,omitempty"`
	Time time.Time `json:"time"`
}

// Write writes f atomically: a temporary file in the same directory
// renamed into place, so a reader sees all of it or nothing.
func Write(path string, f File) error {
	f.Version = statusFileVersion
	if f.Host == "" {
		f.Host = Hostname()
	}
	if f.Time.IsZero() {
		f.Time = time.Now().UTC()
	}
	line, err := json.Marshal(f)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	// 0755: the emptyDir itself is world-writable; what tandem creates inside
	// only needs to be readable by the other containers.
	if err := mkdirAllReadable(dir); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	_, err = tmp.Write(append(line, '\n'))
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Read reads at most 64 KiB of path. present is true whenever the
// path exists; parsed is nil when the content is not a status line (a bare
// `touch`, another writer, garbage): status unknown, treated as success.
func Read(path string) (parsed *File, present bool, err error) {
	data, present, err := readUpToLimit(path)
	if err != nil || !present {
		return nil, present, err
	}
	return Parse(data), true, nil
}

// mkdirAllReadable is os.MkdirAll whose new directories are 0755 whatever
// the umask: under umask 077 they would be 0700 and hide the done file from
// containers running as other users.
func mkdirAllReadable(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, d := range missing {
		// Best effort: another container may have created it first, as its
		// own user, with its own mode.
		_ = os.Chmod(d, 0o755)
	}
	return nil
}

// Parse returns the status in data, or nil when data is not one.
func Parse(data []byte) *File {
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var f File
	if json.Unmarshal(line, &f) != nil || f.Version < 1 || f.Event == "" {
		return nil
	}
	return &f
}

// Succeeded is the sidecar's view of a done file: unknown counts as success.
func (f *File) Succeeded() bool { return f == nil || f.ExitCode == 0 }

// Hostname is this pod's hostname ("" when it cannot be read).
func Hostname() string {
	name, _ := os.Hostname()
	return name
}
