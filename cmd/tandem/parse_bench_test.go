package main

import (
	"context"
	"testing"

	"github.com/tandem-sh/tandem/supervisor"
)

// BenchmarkParse is the command line's share of tandem's start-up: the app
// built, `tandem -- true` parsed and read into a Config, nothing started.
// The signals' registration overlaps it (main begins it), so it is on the
// way to CMD's start whenever it is the longer of the two.
func BenchmarkParse(b *testing.B) {
	replace(b, &runSupervisor, func(context.Context, supervisor.Config) error { return nil })
	for b.Loop() {
		if err := run([]string{"tandem", "--", "true"}); err != nil {
			b.Fatal(err)
		}
	}
}
