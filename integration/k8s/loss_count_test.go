//go:build k8s

package k8s

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// lossCount compares, record by record, what the main sent and had
// acknowledged with what the collector's sink holds.
type lossCount struct {
	sent, acked int
	received    int   // acknowledged records in the sink
	lost        []int // acknowledged records not in the sink
	duplicated  []int // records in the sink more than once
	unacked     int   // records in the sink never acknowledged
}

// sinkRecord is a record's number in the file exporter's JSON lines. A
// line the collector was killed in the middle of still counts what it
// holds whole.
var sinkRecord = regexp.MustCompile(`"stringValue":"loss-record (\d+)"`)

func countLoss(t *testing.T, dir string) lossCount {
	t.Helper()
	c := lossCount{sent: len(readNumbers(t, dir, "sent"))}
	acked := readNumbers(t, dir, "acked")
	c.acked = len(acked)
	inSink := map[int]int{}
	data, err := os.ReadFile(filepath.Join(dir, "sink.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, m := range sinkRecord.FindAllSubmatch(data, -1) {
		n, _ := strconv.Atoi(string(m[1]))
		inSink[n]++
	}
	for n, times := range inSink {
		if times > 1 {
			c.duplicated = append(c.duplicated, n)
		}
	}
	slices.Sort(c.duplicated)
	isAcked := map[int]bool{}
	for _, n := range acked {
		isAcked[n] = true
		if inSink[n] > 0 {
			c.received++
		} else {
			c.lost = append(c.lost, n)
		}
	}
	for n := range inSink {
		if !isAcked[n] {
			c.unacked++
		}
	}
	return c
}

// readNumbers reads one number a line from dir/name (none when it does
// not exist).
func readNumbers(t *testing.T, dir, name string) []int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			t.Fatalf("%s: line %q: %v", name, sc.Text(), err)
		}
		out = append(out, n)
	}
	return out
}

// report logs c on one line the docs' table is made from.
func (c lossCount) report(t *testing.T, what string) {
	t.Helper()
	t.Logf("loss figures: %s: sent %d, acknowledged %d, in the sink %d, lost %d %v, duplicated %d %v, unacknowledged in the sink %d",
		what, c.sent, c.acked, c.received, len(c.lost), c.lost, len(c.duplicated), c.duplicated, c.unacked)
}

// assertNone fails t unless every acknowledged record is in the sink
// exactly once; a control's figures are only reported.
func (c lossCount) assertNone(t *testing.T, variant, what string) {
	t.Helper()
	c.report(t, what)
	if isControl(variant) {
		return
	}
	if len(c.lost) > 0 || len(c.duplicated) > 0 {
		t.Errorf("%s: %d acknowledged records lost %v, %d duplicated %v; want every one in the sink once",
			what, len(c.lost), c.lost, len(c.duplicated), c.duplicated)
	}
	if c.acked == 0 {
		t.Errorf("%s: no record acknowledged: nothing proved", what)
	}
}
