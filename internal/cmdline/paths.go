package cmdline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// tandem adds to a file's name, in the same directory: ".lifeline" (the
// lifeline of a done, ready or stopped file) and, while it makes one, a
// temporary name: "." NAME ".lifeline.tmp-" PID (supervisor/lifeline,
// hold_linux.go; a pid has at most 7 digits) or "." NAME ".tmp-" and 10
// digits (supervisor/statusfile). The longest is 22 bytes more than NAME.
const (
	NameMax     = 255  // NAME_MAX: the bytes of one name in a directory
	pathMax     = 4096 // PATH_MAX, with its NUL
	AddedToName = len(".") + len(".lifeline") + len(".tmp-") + 7
)

// PathRules say which of a path flag's refusals apply.
type PathRules struct {
	EmptyOK bool // "" is a value of its own (--termination-log "" disables)
	// Watched: tandem only looks for the file, so an existing directory
	// counts as present (a sidecar's --done-file); a file tandem writes is
	// first removed, and tandem never removes a directory.
	Watched bool
}

// PathKind is a file tandem writes, or watches. Not accepted: "" (a
// template's empty variable must not become the working directory), a path
// that ends in /, a directory where tandem writes, a name too long for the
// suffixes tandem adds.
func PathKind(example string, rules PathRules) Parser[string] {
	p := Parser[string]{Kind: Kind{Name: "path", Expected: "a file path such as " + example, EmptyOK: rules.EmptyOK}}
	if rules.Watched {
		p.Name = "watched path"
	}
	p.Parse = func(text string) (string, error) {
		if problem := pathProblem(text, rules.Watched); problem != "" {
			return "", errors.New(problem)
		}
		// Cleaned once, here: every part of tandem then uses the same text.
		return filepath.Clean(text), nil
	}
	return p
}

func pathProblem(path string, watched bool) string {
	if strings.HasSuffix(path, "/") {
		return "ends in /, which names a directory"
	}
	if slices.Contains(strings.Split(path, "/"), "..") {
		// Through a symlinked directory the kernel's .. and the text's
		// lead to different places: a main and its sidecar would not meet.
		return "has a .. component, which may name another file through a symlinked directory"
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() && !watched {
		return "is a directory, and tandem never removes one"
	}
	base := filepath.Base(path)
	if len(base)+AddedToName > NameMax {
		return fmt.Sprintf("the name is %d bytes, and with the %d tandem adds (%s and a temporary name) "+
			"it passes the %d a name may have (NAME_MAX): at most %d", len(base), AddedToName, ".lifeline", NameMax, NameMax-AddedToName)
	}
	for _, dir := range strings.Split(filepath.Dir(path), "/") {
		if len(dir) > NameMax {
			return fmt.Sprintf("a directory's name is %d bytes, more than the %d a name may have (NAME_MAX)", len(dir), NameMax)
		}
	}
	if abs, err := filepath.Abs(path); err == nil && len(abs)+AddedToName >= pathMax {
		return fmt.Sprintf("the path is %d bytes, and with the %d tandem adds it passes the %d a path may have (PATH_MAX)",
			len(abs), AddedToName, pathMax-1)
	}
	return ""
}
