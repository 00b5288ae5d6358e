package peers

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Native fuzz targets for what tandem parses from users, files and other
// processes. `make fuzz` runs each; a crasher becomes a seed under
// testdata/fuzz and a case in the matching table test.

func FuzzParsePeerCmdline(f *testing.F) {
	for _, argv := range [][]string{
		{"tandem", "sidecar", "--name", "proxy", "--", "envoy"},
		{"/shared/bin/tandem", "sidecar", "--name=proxy", "--done-file", "/x", "--", "envoy", "--name", "evil"},
		{"tandem", "sidecar", "-name", "p"},
		{"tandem", "main", "--", "job"},
		{"tandem", "sidecar", "--name"},
		{"./tandem", "sidecar"},
		{"not-tandem", "sidecar"},
		{"tandem"},
		{""},
	} {
		f.Add([]byte(strings.Join(argv, "\x00") + "\x00"))
	}
	f.Fuzz(func(t *testing.T, cmdline []byte) {
		name, ok := parseCmdline(cmdline)
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if !ok {
			if name != "" {
				t.Fatalf("%q: not a peer, but name %q", cmdline, name)
			}
			return
		}
		// Only `tandem sidecar` is ever a peer: never any other program.
		if len(argv) < 2 || filepath.Base(argv[0]) != "tandem" || argv[1] != "sidecar" {
			t.Fatalf("%q taken for a tandem sidecar", cmdline)
		}
		if strings.Contains(name, "\x00") {
			t.Fatalf("%q: name %q spans arguments", cmdline, name)
		}
		// What CMD is given after `--` can never name the peer.
		const spoof = "spoofed-name"
		if name != spoof {
			tail := append(bytes.TrimRight(bytes.Clone(cmdline), "\x00"), []byte("\x00--\x00--name\x00"+spoof+"\x00--name="+spoof+"\x00")...)
			if got, ok := parseCmdline(tail); !ok || got == spoof {
				t.Fatalf("%q: CMD's arguments after -- changed the peer to %q, %v", tail, got, ok)
			}
		}
		// A command line tandem would write round-trips its name.
		if !strings.Contains(name, "\x00") && name != "" && !strings.HasPrefix(name, "-") {
			line := []byte("tandem\x00sidecar\x00--name\x00" + name + "\x00--\x00cmd\x00")
			if got, ok := parseCmdline(line); !ok || got != name {
				t.Fatalf("--name %q read back as %q, %v", name, got, ok)
			}
		}
	})
}
