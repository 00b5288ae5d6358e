package integration

import (
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
)

// TestNameEverywhere: --name, given before the command name, after it, or as
// TANDEM_NAME, is in the done file and in every log line.
func TestNameEverywhere(t *testing.T) {
	for _, tt := range []struct {
		name    string
		args    []string // the done file's path is appended to them
		env     []string
		withCMD bool
	}{
		{"main, before", []string{"--name", "foo", "main", "--done-file"}, nil, true},
		{"main, after", []string{"main", "--name", "foo", "--done-file"}, nil, true},
		{"main, env", []string{"main", "--done-file"}, []string{"TANDEM_NAME=foo"}, true},
		{"done, before", []string{"--name", "foo", "done", "--file"}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doneFile := inDir(tempDir(t), "done")
			args := append(append([]string{}, tt.args...), doneFile)
			if tt.withCMD {
				args = cmdArgs(args, helper("exit", "0"))
			}
			p := startTandem(t, procOptions{env: tt.env}, args...)
			if code := p.wait(); code != 0 {
				t.Fatalf("tandem %q exited %d, want 0", args, code)
			}
			if f := scReadStatus(t, doneFile); f.Name != "foo" {
				t.Errorf("done file names %q, want foo", f.Name)
			}
			raw := p.rawLines()
			if len(raw) == 0 {
				t.Fatal("nothing logged")
			}
			for _, text := range raw {
				if line, ok := kit.ParseJSON(text); !ok || line.Field("name") != "foo" {
					t.Errorf("log line without name foo: %s", text)
				}
			}
		})
	}
}
