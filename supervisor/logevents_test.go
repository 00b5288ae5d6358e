package supervisor

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every warning and error line carries an event (SPEC, Flags): log
// pipelines and alerts match on it. This walks the engine's and the CLI's
// sources and finds every zerolog chain that starts at a warning or error
// level; each must pass through event() or .Str("event", ...).
func TestEveryWarningAndErrorHasAnEvent(t *testing.T) {
	fset := token.NewFileSet()
	for _, root := range []string{".", "../cmd/tandem"} {
		for _, file := range parseSources(t, fset, root) {
			for _, problem := range eventProblems(fset, file) {
				t.Error(problem)
			}
		}
	}
}

// The check itself: it finds a line without an event, in each shape a
// logger takes here, and accepts the two ways of giving one.
func TestEventCheckFindsMissingEvents(t *testing.T) {
	const src = `package p
func f() {
	log.Warn().Msg("no event")
	e.log.Error().Err(err).Msg("no event")
	cfg.Log.Err(err).Msg("no event")
	logger.WithLevel(level).Str("path", p).Msg("no event")
	event(e.log.Warn(), cmdline.EventFailed).Msg("ok")
	ev := event(e.log.Error(), cmdline.EventExiting).Err(err)
	log.Warn().Err(err).Str("event", cmdline.EventFailed).Msg("ok")
	log.Info().Msg("info needs none")
	_ = err.Error()
	event(logstamp.At(e.log.Error(), at), cmdline.EventFailed).Msg("ok")
	logstamp.At(e.log.Warn(), at).Msg("no event")
}
type t struct{ l zerolog.Logger }
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	problems := eventProblems(fset, file)
	want := []string{"p.go:3:", "p.go:4:", "p.go:5:", "p.go:6:", "p.go:13:", "p.go:15:"}
	if len(problems) != len(want) {
		t.Fatalf("problems %q, want one at each of %q", problems, want)
	}
	for i, p := range problems {
		if !strings.HasPrefix(p, want[i]) {
			t.Errorf("problem %q, want it at %s", p, want[i])
		}
	}
}

// eventProblems lists each warning or error chain without an event, then
// each logger named so that the walk would not see its lines.
func eventProblems(fset *token.FileSet, file *ast.File) []string {
	var problems []string
	for _, chain := range levelChains(file) {
		if !chain.hasEvent() {
			problems = append(problems, fmt.Sprintf("%s: a %s line without an event: use event(log.%s(), cmdline.Event...)",
				fset.Position(chain.call.Pos()), chain.level, chain.level))
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		if field, ok := n.(*ast.Field); ok && isZerologLogger(field.Type) {
			for _, name := range field.Names {
				if !loggerNames[name.Name] {
					problems = append(problems, fmt.Sprintf("%s: a zerolog.Logger named %q: name it log so the event check sees its lines",
						fset.Position(name.Pos()), name.Name))
				}
			}
		}
		return true
	})
	return problems
}

// parseSources parses every non-test Go file under root.
func parseSources(t *testing.T, fset *token.FileSet, root string) []*ast.File {
	t.Helper()
	var files []*ast.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		files = append(files, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("%d source files under %s: the walk is broken", len(files), root)
	}
	return files
}

// loggerNames are what a zerolog.Logger is called in these sources; the
// walk recognises a logger by its name, so another name would hide its
// lines from it (eventProblems).
var loggerNames = map[string]bool{"log": true, "Log": true, "logger": true}

// levelMethods start a chain at a level that must carry an event.
var levelMethods = map[string]bool{"Warn": true, "Error": true, "Err": true, "WithLevel": true, "Fatal": true, "Panic": true}

func isZerologLogger(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "zerolog" && sel.Sel.Name == "Logger"
}

// levelChain is a call such as log.Warn() with the expressions above it.
type levelChain struct {
	level   string
	call    *ast.CallExpr
	parents []ast.Node // innermost first
}

// levelChains finds every call of a level method on a logger.
func levelChains(file *ast.File) []levelChain {
	var chains []levelChain
	var stack []ast.Node
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && levelMethods[sel.Sel.Name] && isLogger(sel.X) {
				parents := make([]ast.Node, len(stack))
				for i, p := range stack {
					parents[len(stack)-1-i] = p
				}
				chains = append(chains, levelChain{level: sel.Sel.Name, call: call, parents: parents})
			}
		}
		stack = append(stack, n)
		return true
	})
	return chains
}

// isLogger: the expression names a logger (log, e.log, cfg.Log, logger).
func isLogger(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return loggerNames[x.Name]
	case *ast.SelectorExpr:
		return loggerNames[x.Sel.Name]
	}
	return false
}

// hasEvent follows the chain up (each link a method call on the one below)
// and looks for event(chain, ...) or .Str("event", ...).
func (c levelChain) hasEvent() bool {
	var cur ast.Node = c.call
	for i := 0; i < len(c.parents); i++ {
		switch p := c.parents[i].(type) {
		case *ast.CallExpr:
			if fn, ok := p.Fun.(*ast.Ident); ok && fn.Name == "event" && len(p.Args) > 0 && p.Args[0] == cur {
				return true
			}
			if isStamp(p) && len(p.Args) > 0 && p.Args[0] == cur {
				cur = p // logstamp.At(chain, t) is the same chain, stamped
				continue
			}
			return false
		case *ast.SelectorExpr:
			if p.X != cur || i+1 == len(c.parents) {
				return false
			}
			call, ok := c.parents[i+1].(*ast.CallExpr)
			if !ok || call.Fun != p {
				return false
			}
			if p.Sel.Name == "Str" && len(call.Args) == 2 && isString(call.Args[0], "event") {
				return true
			}
			cur, i = call, i+1
		default:
			return false
		}
	}
	return false
}

// isStamp is logstamp.At(chain, t), which returns its chain.
func isStamp(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "At" {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "logstamp"
}

func isString(e ast.Expr, want string) bool {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return false
	}
	s, err := strconv.Unquote(lit.Value)
	return err == nil && s == want
}
