package internal_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The house's arrows point down: supervisor, kube and cmd may use
// internal, never the other way, so that tandem's command-line contract
// (internal/cmdline) does not depend on the engine it describes.
func TestInternalImportsNothingAbove(t *testing.T) {
	const module = "github.com/tandem-sh/tandem/"
	above := []string{module + "supervisor", module + "kube", module + "cmd"}
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			name, _ := strconv.Unquote(imp.Path.Value)
			for _, a := range above {
				if name == a || strings.HasPrefix(name, a+"/") {
					t.Errorf("internal/%s imports %s: internal is below supervisor, kube and cmd", path, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files read: the walk did not find internal's Go", checked)
	}
}
