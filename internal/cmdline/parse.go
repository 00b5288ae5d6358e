package cmdline

import (
	"path/filepath"
	"strings"
)

// Invocation is what one tandem reads of another's command line: which
// command it runs and the flags that say who signals whom.
type Invocation struct {
	Command     string   // argv[1]: CmdSidecar, CmdMain, ...
	Name        string   // --name; "" when not given on the command line
	SignalPeers bool     // --signal-peers
	Peers       []string // every --peer, split on commas
}

// ParseProc reads a /proc/PID/cmdline (arguments ended by NUL). ok is false
// unless argv[0] is named tandem and a command follows: matching process
// names would hit unrelated programs, while a command line is what tandem
// itself wrote. Global flags before the command are not looked through, and
// what follows "--" is CMD's, never tandem's. A flag is read in its forms
// -flag VALUE, --flag VALUE, -flag=VALUE and --flag=VALUE; the last --name
// wins, as with the flag parser.
func ParseProc(cmdline []byte) (inv Invocation, ok bool) {
	argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(argv) < 2 || filepath.Base(argv[0]) != Program {
		return Invocation{}, false
	}
	inv.Command = argv[1]
	for i := 2; i < len(argv) && argv[i] != EndOfFlags; i++ {
		if name, found := flagValue(argv, i, FlagName); found {
			inv.Name = name
		}
		if peers, found := flagValue(argv, i, FlagPeer); found {
			inv.Peers = append(inv.Peers, strings.Split(peers, ",")...)
		}
		switch argv[i] {
		case "--" + FlagSignalPeers, "-" + FlagSignalPeers, "--" + FlagSignalPeers + "=true":
			inv.SignalPeers = true
		}
	}
	return inv, true
}

// flagValue reads flag's value at argv[i]: -flag VALUE, --flag VALUE,
// -flag=VALUE or --flag=VALUE.
func flagValue(argv []string, i int, flag string) (string, bool) {
	for _, prefix := range []string{"--" + flag, "-" + flag} {
		if argv[i] == prefix && i+1 < len(argv) {
			return argv[i+1], true
		}
		if value, found := strings.CutPrefix(argv[i], prefix+"="); found {
			return value, true
		}
	}
	return "", false
}
