package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tandem-sh/tandem/internal/cmdline"
	"github.com/tandem-sh/tandem/internal/exitcode"
)

// badValues are, for each kind of flag, values it must refuse: malformed,
// and out of range where the kind has a range. "" (empty) is tried for
// every flag whose kind does not take it. DIR is replaced by a directory
// that exists.
var badValues = map[string][]string{
	"duration":         {"10", "soon", "-1s"},
	"interval":         {"often", "0s", "-1s"},
	"exit code":        {"abc", "256", "-1"},
	"count":            {"many", "-1", "1.5"},
	"bool":             {"maybe"},
	"signal":           {"FOO", "65", "0", "-1"},
	"catchable signal": {"FOO", "KILL", "SIGSTOP", "9"},
	"done signal":      {"FOO", "TERM", "15", "KILL"},
	"rewrite":          {"TERM", "TERM:99", "KILL:TERM", "TERM:BOGUS"},
	"condition":        {"nope:x", "tcp:127.0.0.1:70000", "file:"},
	"url":              {"ftp://h/q", "https://h/q", "http://127.0.0.1:70000/q"},
	"name":             {"a b", "-a", "a/b", strings.Repeat("n", 254)},
	"choice":           {"bogus"},
	"path":             {"DIR", "DIR/x/", "DIR/" + strings.Repeat("n", cmdline.NameMax-cmdline.AddedToName+1)},
	"watched path":     {"DIR/x/", "DIR/" + strings.Repeat("n", cmdline.NameMax-cmdline.AddedToName+1)},
}

// goParserWords are what Go's parsers say; none may reach the user.
var goParserWords = []string{"strconv.", "parse error", "invalid value", "for flag -", "time: ", "invalid syntax", "ParseInt", "ParseBool"}

// TestBadInput: for every command and every flag that takes a value, each
// bad value of its kind, given on the command line after the command, before
// it (for the app's flags) and in the bare form, and as its TANDEM_<FLAG>
// variable, is exit 2 with one line that names the flag or the variable,
// the value and what is accepted; nothing is started and nothing written.
func TestBadInput(t *testing.T) {
	cases := 0
	for _, cmd := range newApp().Commands {
		for _, f := range cmd.Flags {
			name := f.Names()[0]
			vf, ok := f.(*valueFlag)
			if !ok {
				t.Errorf("tandem %s --%s is not declared with newFlag", cmd.Name, name)
				continue
			}
			k := vf.value().kindOf()
			values, ok := badValues[k.Name]
			if !ok {
				t.Errorf("--%s: no bad values for kind %q in badValues", name, k.Name)
				continue
			}
			if !k.EmptyOK {
				values = append([]string{""}, values...)
			}
			for _, value := range values {
				for _, form := range forms(cmd, name) {
					cases++
					t.Run(cmd.Name+"/"+form.name+"/"+name+"="+value, func(t *testing.T) {
						assertRefused(t, cmd.Name, form, name, value)
					})
				}
			}
		}
	}
	t.Logf("%d bad-input cases", cases)
}

// form is one way to give a flag: on the command line, where, or as its
// variable.
type form struct {
	name string
	args func(command, flag, value, cmd string) []string // cmd: CMD's file to create
	env  bool
}

func forms(cmd *cli.Command, flagName string) []form {
	withCMD := func(args []string, cmdFile string) []string {
		switch cmd.Name {
		case cmdline.CmdInstall:
			return append(args, filepath.Dir(cmdFile))
		case cmdline.CmdRun, cmdline.CmdSidecar, cmdline.CmdMain:
			return append(args, "--", "touch", cmdFile)
		}
		return args
	}
	list := []form{
		{"flag", func(c, f, v, file string) []string { return withCMD([]string{c, "--" + f + "=" + v}, file) }, false},
		{"env", func(c, _, _, file string) []string { return withCMD([]string{c}, file) }, true},
	}
	if !slices.ContainsFunc(newApp().Flags, func(f cli.Flag) bool { return f.Names()[0] == flagName }) {
		return list
	}
	// The app defines it too: before the command, and in the bare form.
	list = append(list, form{"before", func(c, f, v, file string) []string {
		return withCMD([]string{"--" + f + "=" + v, c}, file)
	}, false})
	if cmd.Name == cmdline.CmdRun {
		list = append(list, form{"bare", func(_, f, v, file string) []string {
			return []string{"--" + f + "=" + v, "--", "touch", file}
		}, false})
	}
	return list
}

func assertRefused(t *testing.T, command string, f form, flagName, value string) {
	dir := t.TempDir()
	value = strings.ReplaceAll(value, "DIR", filepath.Join(dir, "existing"))
	if err := os.Mkdir(filepath.Join(dir, "existing"), 0o755); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(dir, "started")
	var env map[string]string
	origin := "--" + flagName
	if f.env {
		origin = cmdline.EnvVar(flagName)
		env = map[string]string{origin: value}
	}
	args := f.args(command, flagName, value, started)
	got, _, err := runApp(t, env, args...)
	if code := exitcode.Of(err); code != exitcode.Usage || exitcode.Logged(err) {
		t.Fatalf("tandem %q (env %v): %v, exit %d; want exit 2", args, env, err, code)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, origin+" "+strconv.Quote(value)+": ") ||
		!strings.Contains(msg, "expected") {
		t.Errorf("tandem %q (env %v) said %q; want one line: %s %q: ... expected ...", args, env, msg, origin, value)
	}
	for _, word := range goParserWords {
		if strings.Contains(msg, word) {
			t.Errorf("Go's parser text %q in %q", word, msg)
		}
	}
	var stderr string
	stderr = captureStderr(t, func() { exit(err) })
	if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || lines[0] != "tandem: "+msg {
		t.Errorf("printed %q; want the one line", stderr)
	}
	if got.cfg != nil || got.done != nil || got.wait != nil {
		t.Error("the command ran despite the bad value")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("something was written: %v", entries)
	}
}
