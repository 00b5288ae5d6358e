package inject

import (
	"slices"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// sharedFieldsJob's sidecar is its main merged (`<<: *export`) with a
// name and a command of its own, one of whose items is an alias.
const sharedFieldsJob = `apiVersion: batch/v1
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
        - &export
          name: export
          image: app:1
          command: [/m, &all --all]
          volumeMounts:
            - {name: data, mountPath: /data}
        - <<: *export
          name: db-proxy
          command: [/s, *all]
      volumes:
        - {name: data, emptyDir: {}}
`

// Containers that share fields through anchors, aliases and merge keys
// are injected as kubectl reads them: the merged image and the aliased
// lists are seen, each container gets the tandem volume once, and what
// inject writes decodes strictly, in either mode.
func TestSharedFieldsInjected(t *testing.T) {
	src := `apiVersion: batch/v1
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
        - &export
          name: export
          image: app:1
          command: &cmd [/m, --all]
          env: &env
            - {name: A, value: "1"}
          volumeMounts:
            - {name: data, mountPath: /data}
        - <<: *export
          name: db-proxy
          args: *cmd
          env: *env
      volumes:
        - {name: data, emptyDir: {}}
`
	for _, mode := range []Mode{Classic, Native} {
		t.Run(string(mode), func(t *testing.T) {
			r, out := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Mode = mode }))
			if r.Status != Injected {
				t.Fatalf("%s", r)
			}
			var job batchv1.Job
			if err := sigsyaml.UnmarshalStrict([]byte(out), &job); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			spec := job.Spec.Template.Spec
			proxy := findContainer(append(spec.InitContainers, spec.Containers...), "db-proxy")
			main := findContainer(spec.Containers, "export")
			if proxy == nil || main == nil {
				t.Fatalf("containers missing:\n%s", out)
			}
			if proxy.Image != "app:1" || len(proxy.Env) != 1 || !slices.Contains(proxy.Args, "--all") {
				t.Errorf("db-proxy lost what it shared: image %q, env %v, args %q\n%s", proxy.Image, proxy.Env, proxy.Args, out)
			}
			// db-proxy runs the main's command (merged) with its own args.
			if want := []string{"/m", "--all", "/m", "--all"}; !slices.Equal(proxy.Args, want) {
				t.Errorf("db-proxy args %q; want %q", proxy.Args, want)
			}
			if got := mounts(*proxy); !slices.Equal(got, []string{"/data", MountPath}) {
				t.Errorf("db-proxy mounts %q; want /data and the tandem volume once", got)
			}
			// The main is wrapped in either mode: it writes its done file.
			wantMain := []string{"/data", MountPath}
			if got := mounts(*main); !slices.Equal(got, wantMain) {
				t.Errorf("export mounts %q; want %q", got, wantMain)
			}
		})
	}
}

// A sidecar whose command is an alias inside a list is read, not refused
// as "expected lists of strings".
func TestAliasedCommandItemRead(t *testing.T) {
	r, out := injectYAML(t, sharedFieldsJob, testOptions())
	if r.Status != Injected {
		t.Fatalf("%s", r)
	}
	var job batchv1.Job
	if err := sigsyaml.UnmarshalStrict([]byte(out), &job); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	proxy := findContainer(job.Spec.Template.Spec.Containers, "db-proxy")
	if want := []string{"/s", "--all"}; proxy == nil || proxy.Image != "app:1" || !slices.Equal(proxy.Args, want) {
		t.Errorf("db-proxy: %+v\n%s", proxy, out)
	}
}

func findContainer(ctrs []corev1.Container, name string) *corev1.Container {
	for i := range ctrs {
		if ctrs[i].Name == name {
			return &ctrs[i]
		}
	}
	return nil
}

func mounts(c corev1.Container) []string {
	var paths []string
	for _, m := range c.VolumeMounts {
		paths = append(paths, m.MountPath)
	}
	return paths
}
