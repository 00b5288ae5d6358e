package doclinks

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Broken is a link that leads nowhere: the file and line it is written on,
// its destination as written, and why.
type Broken struct {
	File   string
	Line   int
	Dest   string
	Reason string
}

func (b Broken) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Dest, b.Reason)
}

// lineAnchor is GitHub's anchor of a line or a range of lines in a source
// file's view (file.go#L12, #L12-L20): not a heading, always there.
var lineAnchor = regexp.MustCompile(`^L[0-9]+(-L[0-9]+)?$`)

// checker reads files under root once each.
type checker struct {
	root  string
	pages map[string]page // by slash path relative to root
}

// Check returns the broken relative links of files (slash paths relative to
// root, Markdown): a path that does not exist or leaves root, or an anchor
// that names no heading of its Markdown target. Links with a scheme are not
// followed. An error is a file of files that cannot be read.
func Check(root string, files []string) ([]Broken, error) {
	c := &checker{root: root, pages: map[string]page{}}
	var broken []Broken
	for _, file := range files {
		p, err := c.page(file)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			if reason := c.follow(file, l.dest); reason != "" {
				broken = append(broken, Broken{File: file, Line: l.line, Dest: l.dest, Reason: reason})
			}
		}
	}
	return broken, nil
}

// page parses file once.
func (c *checker) page(file string) (page, error) {
	if p, ok := c.pages[file]; ok {
		return p, nil
	}
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(file)))
	if err != nil {
		return page{}, fmt.Errorf("read markdown: %w", err)
	}
	p := parsePage(src)
	c.pages[file] = p
	return p, nil
}

// follow says why dest, written in file, leads nowhere; "" when it leads
// somewhere or is not a relative link.
func (c *checker) follow(file, dest string) string {
	u, err := url.Parse(dest)
	if err != nil {
		return fmt.Sprintf("not a URL: %v", err)
	}
	if u.Scheme != "" || u.Host != "" {
		return ""
	}
	target := file
	if u.Path != "" {
		target = path.Join(path.Dir(file), u.Path)
		if strings.HasPrefix(u.Path, "/") {
			target = path.Clean(strings.TrimPrefix(u.Path, "/"))
		}
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leaves the repository"
		}
	}
	info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target)))
	if err != nil {
		return fmt.Sprintf("no such file or directory %q", target)
	}
	if u.Fragment == "" {
		return ""
	}
	return c.anchorProblem(target, info.IsDir(), u.Fragment)
}

// anchorProblem says why #fragment names nothing in target.
func (c *checker) anchorProblem(target string, isDir bool, fragment string) string {
	switch {
	case isDir:
		return fmt.Sprintf("anchor #%s on a directory", fragment)
	case !strings.HasSuffix(target, ".md"):
		if lineAnchor.MatchString(fragment) {
			return ""
		}
		return fmt.Sprintf("anchor #%s in %s, which is not Markdown: only #L12 or #L12-L20", fragment, target)
	}
	p, err := c.page(target)
	if err != nil {
		return err.Error()
	}
	if !p.anchors[fragment] {
		return fmt.Sprintf("no heading of %s has the anchor #%s", target, fragment)
	}
	return ""
}
