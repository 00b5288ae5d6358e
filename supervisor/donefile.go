package supervisor

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/supervisor/lifeline"
	"github.com/tandem-sh/tandem/supervisor/statusfile"
)

// doneFile is one done file as the sidecar sees it: the file itself, and the
// lifeline of the tandem that will write it (attached by the attach job).
type doneFile struct {
	path     string
	lifeline string
	line     *lifeline.Line // attached: a goroutine waits for its release
	gone     *lifeline.Line // the last lifeline whose holder let go
	lost     bool           // that holder ended without writing the file
}

func newDoneFile(path string) *doneFile {
	return &doneFile{path: path, lifeline: lifeline.Of(path)}
}

// released: line's holder let go. It writes the done file first, so no file
// now means it was lost. (A file there from another pod means the volume is
// shared: not a lost main of ours.)
func (f *doneFile) released(line *lifeline.Line) {
	if f.gone != nil {
		f.gone.Close()
	}
	f.gone = line
	f.lost = !f.exists()
}

// searchable is nil while f's lifeline is attached (which proves the way to
// f open) or f can be looked for; else why not (permission denied on the
// way).
func (f *doneFile) searchable() error {
	if f.line != nil {
		return nil
	}
	return unsearchable(f.path)
}

func (f *doneFile) exists() bool {
	_, err := os.Lstat(f.path)
	return err == nil
}

// read gives the done file's status; a file from another pod (its host is
// not host) does not count.
func (f *doneFile) read(host string, warn *onceWarner) (*statusfile.File, bool) {
	status, present, err := statusfile.Read(f.path)
	if !present {
		return nil, false
	}
	if err != nil {
		warn.warn("read:"+f.path, cmdline.EventDoneUnreadable, func(e *zerolog.Event) {
			e.Err(err).Str("path", f.path).
				Msg("done file exists but cannot be read; counting it as done, status unknown")
		})
	}
	if status != nil && status.Host != "" && host != "" && status.Host != host {
		warn.warn("host:"+f.path+status.Host, cmdline.EventDoneFileForeign, func(e *zerolog.Event) {
			e.Str("path", f.path).Str("file_host", status.Host).Str("host", host).
				Msg("done file written in another pod (a volume shared by mistake?); ignoring it")
		})
		return nil, false
	}
	return status, true
}
