package main

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// initProg is one init the benchmarks compare: tandem or a peer.
type initProg struct {
	name string
	path string // resolved; "" when not installed
	// prefix is what comes before CMD, in the peer's own syntax.
	prefix []string
	// subreaper is the flag that makes it reap orphans when it is not PID 1
	// (`tini -s`); nil when it becomes a subreaper by itself (tandem,
	// catatonit: checked by hand, an orphaned grandchild's parent is the
	// init). noSubreaper: it cannot be one (dumb-init).
	subreaper   []string
	noSubreaper bool
}

// argv is the full command line supervising cmd.
func (p initProg) argv(cmd ...string) []string {
	return append(append([]string{p.path}, p.prefix...), cmd...)
}

const installHint = "apt-get install tini dumb-init catatonit"

// peers lists the inits compared with tandem, in the order of the table.
// Each uses its own documented syntax: `tini -- CMD`, `dumb-init CMD`,
// `catatonit -- CMD`.
func peers() []initProg {
	return []initProg{
		{name: "tini", prefix: []string{"--"}, subreaper: []string{"-s"}},
		{name: "tini-static", prefix: []string{"--"}, subreaper: []string{"-s"}},
		{name: "dumb-init", noSubreaper: true},
		{name: "catatonit", prefix: []string{"--"}}, // a subreaper by itself when not PID 1
	}
}

// resolvePeers finds each peer on PATH; missing ones are reported with the
// command that installs them, and left out of every column.
func resolvePeers(warn func(string)) []initProg {
	var found []initProg
	for _, p := range peers() {
		path, err := exec.LookPath(p.name)
		if err != nil {
			warn(fmt.Sprintf("%s not found, its column is skipped; install it with: %s", p.name, installHint))
			continue
		}
		p.path = path
		found = append(found, p)
	}
	return found
}

func tandemProg(path string) initProg {
	return initProg{name: "tandem", path: path, prefix: []string{"--"}}
}

// binaryInfo says how a binary is built: what the size comparison must
// state, since a dynamic binary's size leaves out its libc.
func binaryInfo(path string) (size int64, desc string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, "", err
	}
	f, err := elf.Open(path)
	if err != nil {
		return fi.Size(), "not ELF", nil
	}
	defer f.Close()
	var traits []string
	static := true
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			static = false
		}
	}
	if static {
		traits = append(traits, "static")
	} else {
		traits = append(traits, "dynamic (+ libc, not counted)")
	}
	if f.Section(".symtab") == nil {
		traits = append(traits, "stripped")
	} else {
		traits = append(traits, "not stripped")
	}
	return fi.Size(), strings.Join(traits, ", "), nil
}
