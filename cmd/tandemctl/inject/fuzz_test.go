package inject_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/tandem-sh/tandem/cmd/tandemctl/inject"
	"github.com/tandem-sh/tandem/cmd/tandemctl/manifest"
)

// Whatever the input: it parses or is refused; a stream written without
// changes is the input byte for byte; injection never panics, and what it
// writes parses again and is left as it is by a second injection.
func FuzzInject(f *testing.F) {
	for _, seed := range []string{plainJob, configMap, configMap + "---\n" + plainJob, "{\"kind\": \"Pod\"}", "kind: List\nitems: [{kind: Pod}]\n", "---\n---\n# c\n"} {
		f.Add([]byte(seed))
	}
	opts := inject.Options{Mode: inject.Classic, Image: "tandem:fuzz", Version: "fuzz"}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := manifest.Parse("fuzz", data)
		if err != nil {
			return
		}
		var same bytes.Buffer
		if err := file.Write(&same); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(same.Bytes(), data) {
			t.Fatalf("unchanged stream written as %q; want %q", same.Bytes(), data)
		}
		inject.Files(context.Background(), []*manifest.File{file}, opts, func(inject.Report) {})
		var out bytes.Buffer
		if err := file.Write(&out); err != nil {
			return // a node with no JSON form (a YAML-only tag in a JSON file)
		}
		again, err := manifest.Parse("fuzz", out.Bytes())
		if err != nil {
			t.Fatalf("injected output does not parse: %v\n%s", err, out.Bytes())
		}
		inject.Files(context.Background(), []*manifest.File{again}, opts, func(inject.Report) {})
		var twice bytes.Buffer
		if err := again.Write(&twice); err != nil || !bytes.Equal(twice.Bytes(), out.Bytes()) {
			t.Fatalf("a second injection changed the output (%v):\n%s\nthen:\n%s", err, out.Bytes(), twice.Bytes())
		}
	})
}

// plainJob is a Job with a main and a classic sidecar, commented as people
// write them; configMap a resource without a pod template.
const plainJob = `# The nightly export.
apiVersion: batch/v1
kind: Job
metadata:
  name: export
spec:
  template:
    metadata:
      annotations:
        tandem.sh/sidecars: db-proxy
    spec:
      restartPolicy: Never
      containers:
      - name: export
        image: postgres:16
        command: [pg_dump] # to stdout
      - name: db-proxy
        image: proxy:2
        command: [/cloud-sql-proxy, --port=5432]
`

const configMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings}   # kept as written
data:
  a: "1"
`
