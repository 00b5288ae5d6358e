package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagLike is a flag of a command line, or the "--" that ends the
// flags, within a string (CEL quotes its own strings inside Go's).
var flagLike = regexp.MustCompile(`--[a-z]|['"]--['"]|^--$`)

// The policy spells none of tandem's flags itself: its command lines are
// built from internal/cmdline's names (cmdline.Flag, cmdline.EndOfFlags),
// as inject's are, so that renaming a flag cannot leave the policy
// writing the old one.
func TestNoFlagLiterals(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && flagLike.MatchString(s) {
				t.Errorf("%s: %s spells a flag of tandem's: build it with internal/cmdline", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no Go file of the package found")
	}
}
