package kit

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// registryStartBound is how long docker-registry may take to listen.
const registryStartBound = 30 * time.Second

// StartLoopbackRegistry runs StartRegistry on a free port of 127.0.0.1 and
// returns its HOST:PORT.
func StartLoopbackRegistry(t testing.TB, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	StartRegistry(t, bin, addr)
	return addr
}

// StartRegistry runs Debian's docker-registry (distribution, bin) on addr,
// with its own storage, until the test ends; it returns once the registry
// said it listens.
func StartRegistry(t testing.TB, bin, addr string) {
	t.Helper()
	dir := t.TempDir()
	config := fmt.Sprintf("version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n",
		filepath.Join(dir, "storage"), addr)
	if err := os.WriteFile(filepath.Join(dir, "config.yml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.yml"))
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatalf("docker-registry (apt-get install docker-registry): %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	listening := make(chan string, 1)
	go func() {
		var seen strings.Builder
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			seen.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "listening on "+addr) {
				listening <- ""
				_, _ = io.Copy(io.Discard, r) // keep its pipe drained
				return
			}
		}
		listening <- seen.String()
	}()
	select {
	case out := <-listening:
		if out != "" {
			t.Fatalf("docker-registry ended before listening on %s:\n%s", addr, out)
		}
	case <-time.After(registryStartBound):
		t.Fatalf("docker-registry did not listen on %s within %s", addr, registryStartBound)
	}
}
