package peers

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
)

// A sidecar in a shared PID namespace holds the `tandem main` that will
// signal it (its lifeline there): if that process ends without the done
// signal, the main was lost.

// parseMainCmdline recognises `tandem main` by its command line and says
// which sidecars it signals: all (--signal-peers) or those named by --peer.
func parseMainCmdline(cmdline []byte) (names []string, all, ok bool) {
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(argv) < 2 || filepath.Base(argv[0]) != "tandem" || argv[1] != "main" {
		return nil, false, false
	}
	for i := 2; i < len(argv); i++ {
		arg := argv[i]
		if arg == "--" {
			break
		}
		if arg == "--signal-peers" || arg == "-signal-peers" || arg == "--signal-peers=true" {
			all = true
		}
		for _, prefix := range []string{"--peer", "-peer"} {
			if arg == prefix && i+1 < len(argv) {
				names = append(names, strings.Split(argv[i+1], ",")...)
			} else if value, found := strings.CutPrefix(arg, prefix+"="); found {
				names = append(names, strings.Split(value, ",")...)
			}
		}
	}
	return names, all, true
}

// signals reports whether a main with this command line signals the sidecar
// named name: --peer NAME, or --signal-peers without names.
func mainSignals(cmdline []byte, name string) bool {
	names, all, ok := parseMainCmdline(cmdline)
	if !ok {
		return false
	}
	if len(names) > 0 {
		return name != "" && slices.Contains(names, name)
	}
	return all
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
		cmdline, err := readSmallFile(filepath.Join(f.procRoot, entry, "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte("main")) {
			continue
		}
		if mainSignals(cmdline, name) {
			return Peer{PID: pid, Name: name}, true
		}
	}
	return Peer{}, false
}
