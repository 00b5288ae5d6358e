package supervisor

import (
	"bytes"
	"encoding/json"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultTerminationLogPath is Kubernetes' terminationMessagePath default.
const DefaultTerminationLogPath = "/dev/termination-log"

// DefaultTerminationLog is the path when it exists and is writable, else ""
// (outside Kubernetes there is nothing to write to).
func DefaultTerminationLog() string {
	if unix.Access(DefaultTerminationLogPath, unix.W_OK) == nil {
		return DefaultTerminationLogPath
	}
	return ""
}

// terminationRecord is the one JSON line saying why tandem ended.
type terminationRecord struct {
	Name     string    `json:"name,omitempty"`
	Mode     string    `json:"mode"`
	ExitCode int       `json:"exitCode"`
	Reason   string    `json:"reason"`
	Signal   string    `json:"signal,omitempty"`
	Error    string    `json:"error,omitempty"`
	Time     time.Time `json:"time"`
}

// writeTerminationLog writes rec to path, unless CMD wrote its own message
// there (kept is then true): the message is the container's, and a program
// that says why it ended (Argo's argoexec, Tekton's entrypoint) owns it and
// its readers; tandem's reason is in its log.
func writeTerminationLog(path string, rec terminationRecord) (kept bool, err error) {
	if own, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(own)) > 0 && !isTerminationRecord(own) {
		return true, nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	// Not atomic on purpose: /dev/termination-log is a bind-mounted file
	// that cannot be replaced by a rename.
	return false, os.WriteFile(path, append(line, '\n'), 0o644)
}

// isTerminationRecord tells whether data is a record tandem wrote (an
// explicit --termination-log may outlive the container that wrote it).
func isTerminationRecord(data []byte) bool {
	var rec terminationRecord
	return json.Unmarshal(data, &rec) == nil && rec.Mode != "" && rec.Reason != ""
}
