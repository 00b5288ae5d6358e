package peers

import (
	"bytes"
	"path/filepath"
	"slices"

	"github.com/tandem-sh/tandem/internal/cmdline"
)

// A sidecar in a shared PID namespace holds the `tandem main` that will
// signal it (its lifeline there): if that process ends without the done
// signal, the main was lost.

// signals reports whether a main with this command line signals the sidecar
// named name: --peer NAME, or --signal-peers without names.
func mainSignals(raw []byte, name string) bool {
	inv, ok := cmdline.ParseProc(raw)
	if !ok || inv.Command != cmdline.CmdMain {
		return false
	}
	if len(inv.Peers) > 0 {
		return name != "" && slices.Contains(inv.Peers, name)
	}
	return inv.SignalPeers
}

// FindMain returns the `tandem main` in this PID namespace that signals the
// sidecar named name, if there is one now.
func (f *ProcFinder) FindMain(name string) (Peer, bool) {
	entries, err := readDirNames(f.procRoot)
	if err != nil {
		return Peer{}, false
	}
	for _, entry := range entries {
		pid, ok := parsePID(entry)
		if !ok || pid == f.self {
			continue
		}
		raw, err := readSmallFile(filepath.Join(f.procRoot, entry, "cmdline"))
		if err != nil || !bytes.Contains(raw, []byte(cmdline.CmdMain)) {
			continue
		}
		if mainSignals(raw, name) && !f.forkedCopy(entry) {
			return Peer{PID: pid, Name: name}, true
		}
	}
	return Peer{}, false
}
