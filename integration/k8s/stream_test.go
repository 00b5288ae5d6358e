//go:build k8s

package k8s

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/tandem-sh/tandem/integration/kit"
)

// logStream follows a container's output (`kubectl logs -f`) from its
// start until it ends: the lines of a pod that is being deleted, which
// `kubectl logs` can no longer read once the pod is gone.
type logStream struct {
	ctr   string
	mu    sync.Mutex
	lines []string
	added chan struct{} // closed and replaced on each line
	done  chan struct{}
}

func (n *namespace) follow(ctx context.Context, podName, ctr string) *logStream {
	s := &logStream{ctr: ctr, added: make(chan struct{}), done: make(chan struct{})}
	cmd := exec.CommandContext(ctx, kubectlBin, "--namespace", n.name, "logs", "-f", "--timestamps", podName, "-c", ctr)
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		n.t.Fatalf("follow %s/%s: %v", podName, ctr, err)
	}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.add(sc.Text())
		}
		_ = cmd.Wait()
	}()
	return s
}

func (s *logStream) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
	close(s.added)
	s.added = make(chan struct{})
}

// await waits until a line matches e, at most bound.
func (s *logStream) await(e kit.Event, bound time.Duration) bool {
	timeout := time.After(bound)
	for {
		s.mu.Lock()
		lines, added := kit.ParseLogs(s.ctr, strings.Join(s.lines, "\n")), s.added
		s.mu.Unlock()
		if _, ok := kit.Find(lines, e); ok {
			return true
		}
		select {
		case <-added:
		case <-s.done:
			return false
		case <-timeout:
			return false
		}
	}
}

// ended waits until the container's output ended, at most bound.
func (s *logStream) ended(bound time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(bound):
		return false
	}
}

func (s *logStream) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}
