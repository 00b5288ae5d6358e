package doclinks

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// link is one link or image of a Markdown file, where it was written.
type link struct {
	line int
	dest string
}

// page is what a Markdown file offers and asks: its anchors and its links.
type page struct {
	anchors anchorSet
	links   []link
}

// markdown parses as GitHub renders: CommonMark with tables, strikethrough,
// task lists and bare URLs (which become links with a scheme, not checked).
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// parsePage finds the headings and the links of src.
func parsePage(src []byte) page {
	p := page{anchors: anchorSet{}}
	doc := markdown.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			p.anchors.add(plainText(n, src))
		case *ast.Link:
			p.links = append(p.links, link{line: lineOf(n, src), dest: string(n.Destination)})
		case *ast.Image:
			p.links = append(p.links, link{line: lineOf(n, src), dest: string(n.Destination)})
		}
		return ast.WalkContinue, nil
	})
	return p
}

// plainText is n's text as rendered, without markup: what GitHub slugs.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// lineOf is the 1-based line where n starts: its own position, else its
// first text's, else its block's first line.
func lineOf(n ast.Node, src []byte) int {
	offset := n.Pos()
	for c := n.FirstChild(); offset < 0 && c != nil; c = c.FirstChild() {
		offset = c.Pos()
	}
	for b := n; offset < 0 && b != nil; b = b.Parent() {
		if b.Type() == ast.TypeBlock && b.Lines().Len() > 0 {
			offset = b.Lines().At(0).Start
		}
	}
	if offset < 0 {
		return 0
	}
	return bytes.Count(src[:offset], []byte("\n")) + 1
}
