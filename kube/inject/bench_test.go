package inject

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// BenchmarkInjectStream is a whole `tandemctl inject` of a 1,000-document
// stream with image lookups answered from a map: parse, inject, write. It reports documents per
// second; the goal is the stream in under a second (go test -bench
// InjectStream ./kube/inject).
func BenchmarkInjectStream(b *testing.B) {
	const docs = 1000
	var stream strings.Builder
	for i := range docs {
		if i > 0 {
			stream.WriteString("---\n")
		}
		if i%4 == 3 {
			fmt.Fprintf(&stream, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-%d\ndata:\n  a: \"1\"\n", i)
			continue
		}
		stream.WriteString(strings.Replace(classicJob, "name: export\nspec", fmt.Sprintf("name: export-%d\nspec", i), 1))
	}
	data := []byte(stream.String())
	opts := testOptions() // image lookups from a map
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		f, err := manifest.Parse("bench.yaml", data)
		if err != nil {
			b.Fatal(err)
		}
		files := []*manifest.File{f}
		if failed := Files(context.Background(), files, opts, func(Report) {}); failed != 0 {
			b.Fatalf("%d resources failed", failed)
		}
		var out bytes.Buffer
		if err := manifest.WriteAll(&out, files); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(docs*b.N)/b.Elapsed().Seconds(), "docs/s")
}
