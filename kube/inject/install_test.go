package inject

import (
	"strings"
	"testing"
)

// installPod is the pod every install test injects: a main, and a
// sidecar with a volume of its own.
const installPod = `apiVersion: v1
kind: Pod
metadata:
  name: work
  annotations:
    tandem.sh/sidecars: side
spec:
  restartPolicy: Never
  containers:
    - name: app
      image: app:1
      command: [/app, run]
    - name: side
      image: proxy:2
      command: [/cloud-sql-proxy]
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      emptyDir: {}
`

const installHead = `apiVersion: v1
kind: Pod
metadata:
  name: work
  annotations:
    tandem.sh/sidecars: side
    kubectl.kubernetes.io/default-container: app
    tandem.sh/injected: "v1.2.3"
spec:
  restartPolicy: Never
`

// installMounts are what every wrapped container mounts under each install.
var installMounts = map[Install]string{
	InitCopy: `        - name: tandem
          mountPath: /run/tandem
`,
	ImageVolume: `        - name: tandem
          mountPath: /run/tandem
        - name: tandem-bin
          mountPath: /run/tandem-bin
          readOnly: true
`,
}

// installVolumes are the pod's volumes under each install.
var installVolumes = map[Install]string{
	InitCopy: `  volumes:
    - name: data
      emptyDir: {}
    - name: tandem
      emptyDir: {}
`,
	ImageVolume: `  volumes:
    - name: data
      emptyDir: {}
    - name: tandem
      emptyDir: {}
    - name: tandem-bin
      image:
        reference: ghcr.io/tandem-sh/tandem:v1.2.3
        pullPolicy: IfNotPresent
`,
}

const installCopyInit = `    - name: tandem-install
      image: ghcr.io/tandem-sh/tandem:v1.2.3
      command:
        - /tandem
        - install
        - /run/tandem
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        allowPrivilegeEscalation: false
        readOnlyRootFilesystem: true
        capabilities:
          drop: [ALL]
        seccompProfile:
          type: RuntimeDefault
      volumeMounts:
        - name: tandem
          mountPath: /run/tandem
`

// installSide is the sidecar as each mode wraps it, its binary at bin.
func installSide(mode Mode, bin string, install Install) string {
	flags := "        - --outlive-main\n        - 30s\n        - --restart\n        - always\n        - --main-start-timeout\n        - 600s\n"
	policy, await := "", ""
	if mode == Native {
		flags, policy = "        - --restart\n        - during-deletion\n", "      restartPolicy: Always\n"
		await = "        - --await-termination\n"
	}
	return "    - name: side\n      image: proxy:2\n" + policy + "      command:\n        - " + bin +
		"\n        - sidecar\n        - --name\n        - side\n        - --done-file\n        - /run/tandem/app.done\n" + flags +
		"        - --grace\n        - 5s\n" + await + "        - --\n      args: [/cloud-sql-proxy]\n      volumeMounts:\n        - name: data\n          mountPath: /data\n" +
		installMounts[install]
}

func installApp(bin string, install Install) string {
	return "    - name: app\n      image: app:1\n      command:\n        - " + bin +
		"\n        - main\n        - --name\n        - app\n        - --done-file\n        - /run/tandem/app.done\n        - --termination-grace\n        - 25s\n        - --\n      args: [/app, run]\n      volumeMounts:\n" +
		installMounts[install]
}

// Each install in each mode, written out in full: image-volume adds no
// init container, mounts the tandem image read-only at /run/tandem-bin
// and runs tandem from there, with the files still in the tandem
// emptyDir; init-copy is tandem-install and /run/tandem/tandem.
func TestInstallWritten(t *testing.T) {
	for _, tt := range []struct {
		mode    Mode
		install Install
		bin     string
	}{
		{Classic, ImageVolume, "/run/tandem-bin/tandem"},
		{Native, ImageVolume, "/run/tandem-bin/tandem"},
		{Classic, InitCopy, "/run/tandem/tandem"},
		{Native, InitCopy, "/run/tandem/tandem"},
		{Classic, "", "/run/tandem/tandem"}, // the zero Install is init-copy
	} {
		install := tt.install
		if install == "" {
			install = InitCopy
		}
		inits := ""
		if install == InitCopy {
			inits = installCopyInit
		}
		side, app := installSide(tt.mode, tt.bin, install), installApp(tt.bin, install)
		want := installHead
		if tt.mode == Native {
			want += "  initContainers:\n" + inits + side + "  containers:\n" + app
		} else if inits != "" {
			want += "  initContainers:\n" + inits + "  containers:\n" + side + app
		} else {
			want += "  containers:\n" + side + app
		}
		want += installVolumes[install]
		opts := testOptionsWith(func(o *Options) { o.Mode, o.Install = tt.mode, tt.install })
		t.Run(string(tt.mode)+"/"+string(install), func(t *testing.T) {
			injectsTo(t, installPod, opts, "pod/work: injected (mains: app; sidecars: side)", want)
		})
	}
}

// A pod injected under either install is recognised as injected: by its
// annotation, and without it by its tandem command lines, whichever
// directory they run tandem from.
func TestInstallReinjection(t *testing.T) {
	for _, install := range []Install{ImageVolume, InitCopy} {
		opts := testOptionsWith(func(o *Options) { o.Install = install })
		_, once := injectYAML(t, installPod, opts)
		for _, again := range []Install{ImageVolume, InitCopy} {
			r, twice := injectYAML(t, once, testOptionsWith(func(o *Options) { o.Install = again }))
			if r.Status != Skipped || r.Cause != AlreadyInjected {
				t.Errorf("%s, injected again with %s: %s; want skipped, already injected", install, again, r)
			}
			unchanged(t, once, twice)
			stripped := strings.Replace(once, "    tandem.sh/injected: \"v1.2.3\"\n", "", 1)
			r, _ = injectYAML(t, stripped, testOptionsWith(func(o *Options) { o.Install = again }))
			if r.Status != Failed || !strings.Contains(r.Err.Error(), `already wrapped: container "side" runs tandem (`+install.BinaryPath()+" sidecar") {
				t.Errorf("%s without its annotation, injected with %s: %s; want already wrapped", install, again, r)
			}
		}
	}
}

// The names image-volume adds collide with the pod's own; under
// init-copy they are the pod's to use, and tandem-install is the other
// way round.
func TestInstallCollisions(t *testing.T) {
	for _, tt := range []struct {
		name, from, to string
		install        Install
		want           string
	}{
		{"volume", "name: data", "name: tandem-bin", ImageVolume, `the pod already has a volume named "tandem-bin", which tandem adds: rename that volume`},
		{"mount path", "mountPath: /data", "mountPath: /run/tandem-bin", ImageVolume, `container "side" already mounts something at /run/tandem-bin, where tandem mounts its volume: move that mount`},
		{"volume under init-copy", "name: data", "name: tandem-bin", InitCopy, ""},
		{"tandem-install under image-volume", "name: app", "name: tandem-install", ImageVolume, ""},
		{"tandem-install under init-copy", "name: app", "name: tandem-install", InitCopy, `the pod already has a container named "tandem-install", which tandem adds: rename that container`},
	} {
		src := strings.ReplaceAll(installPod, tt.from, tt.to)
		r, _ := injectYAML(t, src, testOptionsWith(func(o *Options) { o.Install = tt.install }))
		switch {
		case tt.want == "" && r.Status != Injected:
			t.Errorf("%s: %s; want injected", tt.name, r)
		case tt.want != "" && (r.Status != Failed || !strings.Contains(r.Err.Error(), tt.want)):
			t.Errorf("%s: %s; want failed with %q", tt.name, r, tt.want)
		}
	}
}

func TestParseInstall(t *testing.T) {
	for _, s := range []string{"image-volume", "init-copy", "auto"} {
		if got, err := ParseInstall(s); string(got) != s || err != nil {
			t.Errorf("%s: %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "imagevolume", "Init-Copy"} {
		_, err := ParseInstall(s)
		if want := `install "` + s + `": expected image-volume, init-copy or auto`; err == nil || err.Error() != want {
			t.Errorf("%q: %v; want %q", s, err, want)
		}
	}
}
