package kit

import (
	"fmt"
	"strings"
)

// ShipperCount is what the log-shipper example's stand-ins said: how many lines
// the app wrote (the last drain of them after its stop signal), and which
// of them the shipper shipped.
type ShipperCount struct {
	Written, Shipped, Lost int
	Missing                string // the lost lines, quoted
}

// CountShipped reads the app's (web) and the shipper's (fluent-bit) lines.
func CountShipped(lines []Line, drain int) (ShipperCount, error) {
	var s ShipperCount
	wrote, ok := Find(lines, Program("web", "nginx: wrote"))
	if !ok {
		return s, fmt.Errorf("the app did not say how many lines it wrote")
	}
	if _, err := fmt.Sscanf(wrote.Text[strings.Index(wrote.Text, "wrote"):], "wrote %d lines", &s.Written); err != nil {
		return s, fmt.Errorf("%q: %w", wrote.Text, err)
	}
	shipped := map[string]bool{}
	for _, l := range lines {
		if line, ok := strings.CutPrefix(l.Text, "fluent-bit: shipped "); ok && l.Ctr == "fluent-bit" {
			shipped[line] = true
		}
	}
	s.Shipped = len(shipped)
	var missing []string
	for i := 1; i <= s.Written; i++ {
		kind := "line"
		if i > s.Written-drain {
			kind = "drain"
		}
		if line := fmt.Sprintf("%q", fmt.Sprintf("%s %d", kind, i)); !shipped[line] {
			missing = append(missing, line)
		}
	}
	s.Lost, s.Missing = len(missing), strings.Join(missing, ", ")
	return s, nil
}
