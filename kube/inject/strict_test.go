package inject

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"go.yaml.in/yaml/v3"

	"github.com/tandem-sh/tandem/kube/manifest"
)

// workloadTypes are the Go types of the kinds inject rewrites, for a
// strict decode of what it writes, as the API server reads it.
var workloadTypes = map[typeMeta]func() any{
	{"v1", "Pod"}:              func() any { return &corev1.Pod{} },
	{"batch/v1", "Job"}:        func() any { return &batchv1.Job{} },
	{"batch/v1", "CronJob"}:    func() any { return &batchv1.CronJob{} },
	{"apps/v1", "Deployment"}:  func() any { return &appsv1.Deployment{} },
	{"apps/v1", "StatefulSet"}: func() any { return &appsv1.StatefulSet{} },
	{"apps/v1", "DaemonSet"}:   func() any { return &appsv1.DaemonSet{} },
	{"apps/v1", "ReplicaSet"}:  func() any { return &appsv1.ReplicaSet{} },
}

// strictErrors decodes every workload of a YAML stream strictly as its
// Kubernetes type (no unknown or duplicate field, every alias resolvable),
// and says which did not. A stream that does not parse is one error.
func strictErrors(stream []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(stream))
	var errs []error
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return errors.Join(errs...)
		}
		if err != nil {
			return fmt.Errorf("document %d does not parse: %w", i, err)
		}
		if len(doc.Content) == 0 {
			continue
		}
		newObject, ok := workloadTypes[typeMeta{scalar(doc.Content[0], "apiVersion"), scalar(doc.Content[0], "kind")}]
		if !ok {
			continue
		}
		data, err := yaml.Marshal(&doc)
		if err != nil {
			return err
		}
		if err := sigsyaml.UnmarshalStrict(data, newObject()); err != nil {
			errs = append(errs, fmt.Errorf("document %d: %w", i, err))
		}
	}
}

func scalar(m *yaml.Node, key string) string {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1].Value
		}
	}
	return ""
}

// wantStrictOutput: when the input decodes strictly as its Kubernetes
// type, so does what inject wrote.
func wantStrictOutput(t testing.TB, in, out []byte) {
	t.Helper()
	if strictErrors(in) != nil {
		return
	}
	if err := strictErrors(out); err != nil {
		t.Fatalf("inject wrote what the API server would refuse: %v\n%s", err, out)
	}
}

// A sidecar that aliases an anchor of the main it moves in front of gets
// the aliased value itself, in either mode: the alias may not precede its
// anchor.
func TestAliasBeforeItsAnchorExpanded(t *testing.T) {
	src := "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n" +
		"    metadata:\n      annotations:\n        tandem.sh/sidecars: side\n    spec:\n      restartPolicy: Never\n      containers:\n" +
		"        - name: main\n          image: app:1\n          command: [/m]\n          resources: &res\n            limits: {cpu: \"1\"}\n" +
		"        - name: side\n          image: app:1\n          command: [/s]\n          resources: *res\n"
	for _, mode := range []Mode{Classic, Native} {
		t.Run(string(mode), func(t *testing.T) {
			r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode }))
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			if err := strictErrors([]byte(out)); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(out, "resources: &res") || strings.Contains(out, "*res") {
				t.Errorf("want the anchor kept on the main and the sidecar's alias expanded:\n%s", out)
			}
		})
	}
}

// Every manifest of examples/ that inject rewrites comes out as the API
// server would accept it.
func TestExamplesInjectedDecodeStrictly(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "examples", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	more, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "*.yaml"))
	for _, path := range append(paths, more...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := strictErrors(data); err != nil {
				t.Fatalf("the example itself: %v", err)
			}
			file, err := manifest.Parse(path, data)
			if err != nil {
				t.Fatal(err)
			}
			opts := testOptionsWith(func(o *Options) { o.Resolver = nil })
			Files(context.Background(), []*manifest.File{file}, opts, func(Report) {})
			var out bytes.Buffer
			if err := file.Write(&out); err != nil {
				t.Fatal(err)
			}
			if err := strictErrors(out.Bytes()); err != nil {
				t.Fatalf("%v\n%s", err, out.Bytes())
			}
		})
	}
}
