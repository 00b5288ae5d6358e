package check

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Format is how findings are printed (-o).
type Format string

const (
	Text Format = "text"
	JSON Format = "json"
)

// ParseFormat reads -o's value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON:
		return f, nil
	}
	return "", fmt.Errorf("%q: expected text or json", s)
}

// Render prints the report in format f.
func Render(w io.Writer, r Report, f Format) error {
	if f == JSON {
		return renderJSON(w, r)
	}
	return renderText(w, r)
}

// renderJSON prints the findings as one JSON list; an empty one is [].
func renderJSON(w io.Writer, r Report) error {
	findings := r.Findings
	if findings == nil {
		findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(findings)
}

// renderText prints each finding as a block (what, where; why; the fix),
// then one line that counts them.
func renderText(w io.Writer, r Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		where := f.Name
		if f.Namespace != "" {
			where = f.Namespace + "/" + f.Name
		}
		fmt.Fprintf(&b, "%s %s %s\n  %s\n", strings.ToUpper(string(f.Severity)), f.Check, where, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "  fix: %s\n", f.Fix)
		}
		b.WriteString("\n")
	}
	errs := r.Errors()
	warns := len(r.Findings) - errs
	switch {
	case errs == 0 && warns == 0:
		b.WriteString("no problems found")
	default:
		fmt.Fprintf(&b, "%s, %s", count(errs, "error", "errors"), count(warns, "warning", "warnings"))
	}
	fmt.Fprintf(&b, " (checked %s and %s)\n", count(r.Pods, "pod", "pods"), count(r.Webhooks, "webhook of tandem", "webhooks of tandem"))
	_, err := io.WriteString(w, b.String())
	return err
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
