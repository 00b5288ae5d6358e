//go:build e2e

package e2e

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tandem-sh/tandem/integration/kit"
	"golang.org/x/sys/unix"
)

// The local images the manifests are played with; nothing is pulled.
const (
	// tandemImage is built from Dockerfile.scratch: the binary alone.
	tandemImage = "localhost/tandem-e2e/tandem:test"
	// testImage has tandem on its PATH (and at /tandem), busybox with its
	// applet links, and standin.
	testImage = "localhost/tandem-e2e/tools:test"
)

var (
	// skipReason is set when this machine cannot run pods; every test skips
	// with it.
	skipReason string
	// repoRoot is the module's root, where examples/ and Dockerfile.scratch are.
	repoRoot string
)

func TestMain(m *testing.M) {
	code, err := setupAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setupAndRun(m *testing.M) (int, error) {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		return 0, err
	}
	if skipReason = missingTools(); skipReason != "" {
		if os.Getenv("TANDEM_E2E_REQUIRED") != "" {
			// CI installs the tools: skipping there would hide a broken setup.
			return 0, fmt.Errorf("TANDEM_E2E_REQUIRED is set, but %s", skipReason)
		}
		fmt.Fprintln(os.Stderr, "e2e: skipping every test:", skipReason)
		return m.Run(), nil
	}
	work, err := os.MkdirTemp("", "tandem-e2e-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	conf, err := writeContainersConf(work)
	if err != nil {
		return 0, err
	}
	// Every podman call of the tests inherits it.
	os.Setenv("CONTAINERS_CONF", conf)
	removeStalePods()
	removeStaleVolumes()
	if err := buildImages(work); err != nil {
		return 0, err
	}
	code := m.Run()
	if err := kit.CheckPlayed(repoRoot, skipReason != ""); code == 0 && err != nil {
		return 0, err
	}
	return code, nil
}

// stalePod is the name examplePod gives: NAME-PID of the test process.
var stalePod = regexp.MustCompile(`^e2e-.*-([0-9]+)$`)

// removeStalePods removes the pods of earlier runs that were killed before
// their cleanup ran (a timeout, a Ctrl-C), and only those: their test
// process is gone.
func removeStalePods() {
	removeStale("pod", stalePod, func(name string) {
		fmt.Fprintln(os.Stderr, "e2e: removing pod", name, "left by an earlier run")
		_ = exec.Command("podman", "pod", "rm", "--force", "--time", "0", name).Run()
	})
}

// removeStale calls remove for each podman object of this kind (pod,
// volume) whose name stale matches and whose last group, the pid of the
// test process that made it, is no longer running.
func removeStale(kind string, stale *regexp.Regexp, remove func(name string)) {
	out, err := exec.Command("podman", kind, "ls", "--format", "{{.Name}}").Output()
	if err != nil {
		return
	}
	for _, name := range strings.Fields(string(out)) {
		m := stale.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[len(m)-1])
		if pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		remove(name)
	}
}

// requirePodman skips t when this machine cannot run pods.
func requirePodman(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}

func missingTools() string {
	const install = "(.ci/run installs podman, runc and busybox-static)"
	for _, tool := range []string{"podman", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " not found in PATH " + install
		}
	}
	if !isStaticELF("/bin/busybox") {
		return "/bin/busybox is missing or not static " + install
	}
	if os.Geteuid() != 0 {
		return "the pod tests run rootful podman: run them as root"
	}
	return ""
}

// isStaticELF: a dynamically linked ELF has a PT_INTERP program header,
// and a FROM scratch image has no loader for it.
func isStaticELF(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}

// writeContainersConf makes podman use runc (crun fails here on hybrid
// cgroups) and rlimits it is allowed to set: the current hard limits, with
// nproc at most pid_max, to which podman lowers its own limit at start.
func writeContainersConf(dir string) (string, error) {
	var nofile, nproc unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &nofile); err != nil {
		return "", fmt.Errorf("getrlimit nofile: %w", err)
	}
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &nproc); err != nil {
		return "", fmt.Errorf("getrlimit nproc: %w", err)
	}
	pidMax, err := readUint("/proc/sys/kernel/pid_max")
	if err != nil {
		return "", err
	}
	files := nofile.Max
	if files == unix.RLIM_INFINITY {
		// The kernel caps open files at fs.nr_open whatever the rlimit says.
		if files, err = readUint("/proc/sys/fs/nr_open"); err != nil {
			return "", err
		}
	}
	procs := min(nproc.Max, pidMax)
	conf := fmt.Sprintf(`# Written by the e2e tests of tandem for one run.
[containers]
default_ulimits = ["nofile=%d:%d", "nproc=%d:%d"]

[engine]
runtime = "runc"
`, files, files, procs, procs)
	path := filepath.Join(dir, "containers.conf")
	return path, os.WriteFile(path, []byte(conf), 0o644)
}

func readUint(path string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// buildImages builds tandemImage from the repository's Dockerfile.scratch,
// with the binary under test in its context, and testImage. Podman's layer
// cache makes a second run with the same binaries almost free.
func buildImages(work string) error {
	tandem, err := tandemBinary(work)
	if err != nil {
		return err
	}
	standin := filepath.Join(work, "standin")
	build := exec.Command("go", "build", "-trimpath", "-o", standin, "./standin")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("build standin: %v\n%s", err, out)
	}

	scratchCtx := filepath.Join(work, "tandem-image")
	if err := copyFile(tandem, filepath.Join(scratchCtx, "bin", "tandem"), 0o755); err != nil {
		return err
	}
	if err := podmanBuild(tandemImage, filepath.Join(repoRoot, "Dockerfile.scratch"), scratchCtx); err != nil {
		return err
	}

	toolsCtx := filepath.Join(work, "test-image")
	for src, dst := range map[string]string{
		tandem:         "tandem",
		standin:        "standin",
		"/bin/busybox": "busybox",
	} {
		if err := copyFile(src, filepath.Join(toolsCtx, dst), 0o755); err != nil {
			return err
		}
	}
	return podmanBuild(testImage, filepath.Join(repoRoot, "integration", "kit", "tools.Containerfile"), toolsCtx)
}

// tandemBinary is $TANDEM_BIN (make e2e), else bin/tandem from `make build`,
// else one built here.
func tandemBinary(work string) (string, error) {
	if bin := os.Getenv("TANDEM_BIN"); bin != "" {
		return bin, nil
	}
	if bin := filepath.Join(repoRoot, "bin", "tandem"); isStaticELF(bin) {
		return bin, nil
	}
	bin := filepath.Join(work, "tandem")
	build := exec.Command("go", "build", "-trimpath", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/tandem")
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build tandem: %v\n%s", err, out)
	}
	return bin, nil
}

// podmanBuild builds tag, and removes the image the tag named before when
// it changed (a new tandem binary), so that repeated runs leave no pile of
// untagged images behind.
func podmanBuild(tag, file, context string) error {
	previous, _ := exec.Command("podman", "image", "inspect", "--format", "{{.Id}}", tag).Output()
	var stderr bytes.Buffer
	cmd := exec.Command("podman", "build", "--quiet", "-f", file, "-t", tag, context)
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		return fmt.Errorf("podman build %s: %v\n%s", tag, err, stderr.Bytes())
	}
	current, _ := exec.Command("podman", "image", "inspect", "--format", "{{.Id}}", tag).Output()
	if old := strings.TrimSpace(string(previous)); old != "" && old != strings.TrimSpace(string(current)) {
		// Fails harmlessly when something else still uses it.
		_ = exec.Command("podman", "rmi", old).Run()
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
