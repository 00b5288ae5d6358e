package cmdline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEveryEventIsDocumented holds docs/events.md to this package: log
// pipelines match on these names, so a new one is documented with its code.
func TestEveryEventIsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	events := eventNames(t)
	if len(events) == 0 {
		t.Fatal("no Event* constants found in this package")
	}
	for name, value := range events {
		if !strings.Contains(string(doc), "`"+value+"`") {
			t.Errorf("%s = %q is not in docs/events.md", name, value)
		}
	}
}

// eventNames reads the string constants named Event* of this package's
// sources: Go cannot list a package's constants at run time.
func eventNames(t *testing.T) map[string]string {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			for _, decl := range file.Decls {
				addEvents(t, decl, names)
			}
		}
	}
	return names
}

func addEvents(t *testing.T, decl ast.Decl, names map[string]string) {
	gen, ok := decl.(*ast.GenDecl)
	if !ok || gen.Tok != token.CONST {
		return
	}
	for _, spec := range gen.Specs {
		vs := spec.(*ast.ValueSpec)
		for i, ident := range vs.Names {
			if !strings.HasPrefix(ident.Name, "Event") || i >= len(vs.Values) {
				continue
			}
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				continue
			}
			value, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", ident.Name, err)
			}
			names[ident.Name] = value
		}
	}
}
