package supervisor

import (
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

func writeTerminationLog(path string, rec terminationRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// Not atomic on purpose: /dev/termination-log is a bind-mounted file
	// that cannot be replaced by a rename.
	return os.WriteFile(path, append(line, '\n'), 0o644)
}
